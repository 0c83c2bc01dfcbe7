"""What several test modules share: node processes, frontiers, ops probes, manifests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
