#!/usr/bin/env python
"""Build the generic-blog fixture sites with real static-site generators, from the lab's
WordPress content (its database truth: 15 posts, 3 authors, tags, categories).

    python scripts/build_blog_fixtures.py --truth /work/shared/engines/wordpress/truth.json

* ``blog_pelican``: Pelican (PyPI) with its default theme ``notmyidea``: hAtom markup
  (``hentry``, ``entry-title``, ``entry-content``, ``abbr.published[title]``,
  ``address.vcard.author``), an Atom feed with full content, index pagination, no Open Graph,
  no JSON-LD, no sitemap.

Writes the site to ``tests/fixtures/sites/<name>/`` (``routes.json`` for the fixture server) and
``tests/fixtures/profiles/<name>/truth.json`` (the posts with their URLs on the fixture site).
``expected.json`` is then written by ``scripts/update_profile_fixtures.py --overwrite-json
blog_pelican``.
"""

from __future__ import annotations

import argparse
import html
import json
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawler.demo.fixture_server import route_key  # noqa: E402
from tests.sitekit import SITES  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "profiles"
FAKE = "http://fixture.invalid"
TYPES = {".html": "text/html; charset=utf-8", ".xml": "application/atom+xml; charset=utf-8"}


THEMES = {
    # Microformats 2 (h-entry), categories marked rel="category tag" as WordPress does.
    "blog_hentry": (
        '<article class="h-entry"><h1 class="p-name">{{ article.title }}</h1>'
        '<p>By <a class="p-author h-card" href="{{ SITEURL }}/about/">{{ article.author }}</a> on '
        '<time class="dt-published" datetime="{{ article.date.isoformat() }}">{{ article.locale_date }}</time></p>'
        '<div class="e-content">{{ article.content }}</div>'
        '<p>Filed under <a class="p-category" rel="category tag" href="{{ SITEURL }}/category/{{ article.category.slug }}/">'
        '{{ article.category }}</a>. Tags: {% for tag in article.tags %}'
        '<a class="p-category" rel="tag" href="{{ SITEURL }}/tag/{{ tag.slug }}/">{{ tag }}</a> {% endfor %}</p></article>'
    ),
    # A plain <article>: a heading, a <time>, a byline, no classes that name anything.
    "blog_article": (
        '<article><header><h1>{{ article.title }}</h1><p>Posted on <time datetime="{{ article.date.isoformat() }}">'
        '{{ article.locale_date }}</time> by <span class="author">{{ article.author }}</span></p></header>'
        '{{ article.content }}<footer>Category: <a href="{{ SITEURL }}/category/{{ article.category.slug }}/">'
        '{{ article.category }}</a> Tags: {% for tag in article.tags %}<a href="{{ SITEURL }}/tag/{{ tag.slug }}/">'
        '{{ tag }}</a> {% endfor %}</footer></article>'
    ),
    # Nothing on the page says "article": the Atom feed (full content) is the only source.
    "blog_feedonly": '<div class="wrap"><div class="t">{{ article.title }}</div><div class="c">{{ article.content }}</div></div>',
}
_BASE = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{% block title %}{{ SITENAME }}{% endblock %}</title>'
    '<link href="{{ FEED_DOMAIN }}/{{ FEED_ALL_ATOM }}" type="application/atom+xml" rel="alternate" title="{{ SITENAME }}">'
    '</head><body><div id="top"><a href="{{ SITEURL }}/">{{ SITENAME }}</a></div>{% block content %}{% endblock %}'
    '<div id="bottom">Built with Pelican</div></body></html>'
)
_INDEX = (
    '{% extends "base.html" %}{% block content %}<ul>{% for article in articles_page.object_list %}'
    '<li><a href="{{ SITEURL }}/{{ article.url }}">{{ article.title }}</a></li>{% endfor %}</ul>'
    '{% if articles_page.has_next() %}<a href="{{ SITEURL }}/{{ articles_next_page.url }}">Older posts</a>{% endif %}'
    '{% endblock %}'
)


def themed(truth: dict, name: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        theme = Path(tmp) / "theme" / "templates"
        theme.mkdir(parents=True)
        (theme / "base.html").write_text(_BASE, encoding="utf-8")
        (theme / "index.html").write_text(_INDEX, encoding="utf-8")
        (theme / "article.html").write_text(
            '{% extends "base.html" %}{% block title %}{{ article.title }} | {{ SITENAME }}{% endblock %}'
            "{% block content %}" + THEMES[name] + "{% endblock %}",
            encoding="utf-8",
        )
        extra = [
            f"THEME = '{Path(tmp) / 'theme'}'",
            "DIRECT_TEMPLATES = ['index']",
            "PAGINATED_TEMPLATES = {'index': None}",
            *(f"{kind}_SAVE_AS = ''" for kind in ("CATEGORY", "TAG", "AUTHOR", "ARCHIVES", "YEAR_ARCHIVE", "MONTH_ARCHIVE")),
            "PAGINATION_PATTERNS = ((1, '{url}', '{save_as}'), (2, '{base_name}/page/{number}/', '{base_name}/page/{number}/index.html'))",
            # A feed-only blog's feed holds every post (the pages say nothing).
            *(["FEED_MAX_ITEMS = None"] if name == "blog_feedonly" else []),
        ]
        _build(truth, FIXTURES / name, Path(tmp), extra, f"Pelican 4 with a {name.split('_')[1]} theme")


def pelican(truth: dict, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _build(truth, out, Path(tmp), [], "Pelican 4 (notmyidea theme: hAtom, Atom feed with full content)")


def _build(truth: dict, out: Path, tmp: Path, extra: list[str], engine: str) -> None:
    if True:
        content, output = tmp / "content", tmp / "output"
        content.mkdir()
        for number, post in enumerate(truth["posts"], 1):
            at = datetime.fromisoformat(post["published"])
            source = (
                f"<html><head><title>{html.escape(post['title'])}</title>"
                f'<meta name="date" content="{at:%Y-%m-%d %H:%M}" />'
                f'<meta name="slug" content="post-{number:02d}" />'
                f'<meta name="tags" content="{html.escape(", ".join(post["tags"]))}" />'
                f'<meta name="category" content="{html.escape(post["categories"][0])}" />'
                f'<meta name="authors" content="{html.escape(post["author"])}" />'
                f"</head><body>{post['body_html']}</body></html>"
            )
            (content / f"post-{number:02d}.html").write_text(source, encoding="utf-8")
        conf = tmp / "pelicanconf.py"
        conf.write_text(
            "\n".join(
                [
                    "SITENAME = 'Lab Notes'",
                    f"SITEURL = '{FAKE}'",
                    "TIMEZONE = 'UTC'",
                    "DEFAULT_LANG = 'en'",
                    "DEFAULT_PAGINATION = 5",
                    "FEED_ALL_ATOM = 'feeds/all.atom.xml'",
                    "FEED_MAX_ITEMS = 10",
                    "RSS_FEED_SUMMARY_ONLY = False",
                    "CATEGORY_FEED_ATOM = None",
                    "AUTHOR_FEED_ATOM = None",
                    "AUTHOR_FEED_RSS = None",
                    "TRANSLATION_FEED_ATOM = None",
                    "ARTICLE_URL = '{date:%Y}/{date:%m}/{slug}/'",
                    "ARTICLE_SAVE_AS = '{date:%Y}/{date:%m}/{slug}/index.html'",
                    "RELATIVE_URLS = False",
                    "DELETE_OUTPUT_DIRECTORY = True",
                    *extra,
                ]
            )
            + "\n",
            encoding="utf-8",
        )
        subprocess.run(
            [sys.executable, "-m", "pelican", str(content), "-o", str(output), "-s", str(conf), "-q"], check=True
        )
        _to_site(output, out)
    posts = []
    for number, post in enumerate(truth["posts"], 1):
        at = datetime.fromisoformat(post["published"])
        posts.append(dict(post, url=f"{FAKE}/{at:%Y}/{at:%m}/post-{number:02d}/", categories=post["categories"][:1]))
    _truth(out, truth, posts, engine)


def _to_site(output: Path, out: Path) -> None:
    site = SITES / out.name
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    routes = {}
    for path in sorted(output.rglob("*")):
        if path.suffix not in TYPES or not path.is_file():
            continue
        relative = path.relative_to(output).as_posix()
        name = relative.replace("/", "__")
        shutil.copyfile(path, site / name)
        target = "/" + (relative[: -len("index.html")] if relative.endswith("index.html") else relative)
        routes[route_key(target)] = {"file": name, "content_type": TYPES[path.suffix]}
    manifest = {"kind": "learned_blog", "spider": "blog", "date": "Mon, 01 Jul 2024 00:00:00 GMT", "start": "/", "routes": routes}
    (site / "routes.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _truth(out: Path, truth: dict, posts: list[dict], engine: str) -> None:
    for post in posts:
        post.pop("comments", None)
    data = {"engine": engine, "base_url": f"{FAKE}/", "posts": posts}
    out.mkdir(parents=True, exist_ok=True)
    (out / "truth.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--truth", type=Path, required=True)
    args = parser.parse_args()
    truth = json.loads(args.truth.read_text(encoding="utf-8"))
    pelican(truth, FIXTURES / "blog_pelican")
    for name in THEMES:
        themed(truth, name)
    print("built blog_pelican", *THEMES)


if __name__ == "__main__":
    main()
