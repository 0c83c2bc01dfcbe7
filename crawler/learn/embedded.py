"""Posts a page carries as data rather than as markup: schema.org JSON-LD, and the JSON a page
embeds for its own front end (``<script type="application/json">``, ``window.__DATA__ = {...}``).

Used before record mining when the page's markup has no schema.org microdata posts. A rule is
plain data kept in :attr:`~crawler.learn.template.PostRules.data`:

* ``{"kind": "jsonld"}``: every ``DiscussionForumPosting``/``SocialMediaPosting``/``Comment``
  object of the page's JSON-LD (an opening post's ``comment`` list included), in page order;
* ``{"kind": "json", "path": [...], "keys": {...}}``: the list of post objects at ``path`` inside
  an embedded JSON blob, with the key of each field (``keys["author"]`` may be ``user.name``).

Both give the same post dicts as :func:`crawler.learn.apply.read_posts`.
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from lxml import etree

from crawler import jsonld
from crawler.learn.dom import content_digest, element_text, parse

__all__ = ["learn_data_rule", "read_data_posts"]

_POSTING = {"DiscussionForumPosting", "SocialMediaPosting", "Comment", "Answer"}
_ASSIGN = re.compile(
    r"^\s*(?:window\.|var\s+|let\s+|const\s+)?[\w$.]+\s*=\s*([\[{].*[\]}])\s*;?\s*$", re.S)
_TAG = re.compile(r"<[a-z][^>]*>", re.I)
# Field -> the keys front ends use for it, most specific first.
_KEYS = {
    "body": ("content_html", "body_html", "cooked", "html", "content", "body", "message", "text",
             "raw"),
    "date": ("created_at", "createdAt", "timestampISO", "datePublished", "dateCreated", "posted_at",
             "postedAt", "created", "date", "timestamp", "time", "dateline"),
    "author": ("author", "user", "username", "userName", "poster", "user_name", "creator"),
    "post_id": ("post_id", "postId", "pid", "id", "@id"),
    "position": ("position", "post_number", "postNumber", "floor", "index", "number"),
}
_NAME_KEYS = ("name", "username", "displayName", "display_name", "userslug", "login")
_ID_KEYS = ("id", "uid", "user_id", "userId")


def _postings(root: etree._Element) -> list[dict[str, Any]]:
    """The page's JSON-LD posts: postings, comments and answers that carry their text."""
    scripts = jsonld.parse_scripts(
        s.text for s in root.xpath("//script[@type='application/ld+json']"))
    return [obj for obj in jsonld.objects(scripts, jsonld.NESTED)
            if jsonld.types(obj) & _POSTING and (obj.get("text") or obj.get("articleBody"))]


def _blobs(root: etree._Element) -> list[Any]:
    """The JSON blobs of a page's scripts (not JSON-LD)."""
    blobs = []
    for script in root.iter("script"):
        kind = (script.get("type") or "").lower()
        text = script.text or ""
        if kind == "application/ld+json" or len(text) < 40:
            continue
        if kind == "application/json":
            candidate = text
        else:
            match = _ASSIGN.match(text)
            if not match:
                continue
            candidate = match.group(1)
        try:
            blobs.append(json.loads(candidate))
        except ValueError:
            continue
    return blobs


def _key_for(objects: list[dict[str, Any]], field: str) -> str | None:
    for key in _KEYS[field]:
        if sum(1 for o in objects if o.get(key) not in (None, "", [], {})) >= 0.8 * len(objects):
            return key
    return None


def _post_lists(data: Any,
                path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], dict[str, str]]]:
    """``(path, keys)`` of every list of two or more objects that each have a body, a date and
    an author."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _post_lists(value, (*path, key))
    elif isinstance(data, list):
        objects = [o for o in data if isinstance(o, dict)]
        if len(objects) >= 2 and len(objects) == len(data):
            keys = {f: k for f in _KEYS if (k := _key_for(objects, f))}
            if {"body", "date", "author"} <= set(keys) and keys["body"] != keys["author"]:
                found.append((path, keys))
        for index, value in enumerate(data[:3]):
            if isinstance(value, (dict, list)) and not found:
                found += _post_lists(value, (*path, index))
    return found


def learn_data_rule(roots: list[etree._Element]) -> dict[str, Any] | None:
    """A data rule that gives posts on at least two pages (JSON-LD first), else ``None``."""
    if sum(1 for root in roots if len(_postings(root)) >= 1) >= 2:
        return {"kind": "jsonld"}
    votes: dict[str, tuple[int, dict[str, Any]]] = {}
    for root in roots:
        for blob in _blobs(root):
            for path, keys in _post_lists(blob):
                rule = {"kind": "json", "path": list(path), "keys": keys}
                name = json.dumps(rule, sort_keys=True)
                votes[name] = (votes.get(name, (0, rule))[0] + 1, rule)
    best = max(votes.values(), key=lambda v: v[0], default=None)
    return best[1] if best and best[0] >= 2 else None


def _at(data: Any, path: list[Any]) -> Any:
    for step in path:
        if isinstance(data, dict) and isinstance(step, str):
            data = data.get(step)
        elif isinstance(data, list) and isinstance(step, int) and step < len(data):
            data = data[step]
        else:
            return None
    return data


def _author(value: Any) -> tuple[str | None, str | None]:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        name = next((str(value[k]) for k in _NAME_KEYS if value.get(k)), None)
        uid = next((str(value[k]) for k in _ID_KEYS if value.get(k) not in (None, "")), None)
        if uid is None and isinstance(value.get("url"), str):
            match = re.search(r"/(?:u|users?|members?|profile)/([^/?#]+)", value["url"])
            uid = match.group(1) if match else None
        return name, uid
    return (str(value), None) if value not in (None, "") else (None, None)


def _body(value: Any) -> tuple[str | None, str]:
    text = str(value or "").strip()
    if not text:
        return None, ""
    if _TAG.search(text):
        return text, element_text(parse(f"<div>{text}</div>"))
    html = "".join(f"<p>{escape(line)}</p>" for line in text.splitlines() if line.strip())
    return html, " ".join(line.strip() for line in text.splitlines() if line.strip())


def _post(obj: dict[str, Any], keys: dict[str, str]) -> dict[str, Any]:
    body_html, body_text = _body(obj.get(keys["body"]))
    name, uid = _author(obj.get(keys["author"]))
    created = obj.get(keys["date"])
    post_id = obj.get(keys["post_id"]) if "post_id" in keys else None
    if keys.get("post_id") in ("url", "@id"):  # JSON-LD: the number of the url's fragment, if any
        match = re.search(r"#\D*(\d+)\D*$", str(post_id or ""))
        post_id = match.group(1) if match else None
    position = obj.get(keys["position"]) if "position" in keys else None
    return {
        "post_id": str(post_id) if post_id not in (None, "") else None,
        "digest": content_digest(name, body_text, str(created or "")),
        "author_name": name,
        "author_id": uid,
        "created_raw": str(created) if created not in (None, "") else None,
        "body_html": body_html,
        "body_text": body_text,
        "position": int(position) if str(position or "").isdigit() else None,
    }


_JSONLD_KEYS = {"body": "articleBody", "date": "datePublished", "author": "author",
                "post_id": "url", "position": "position"}


def read_data_posts(rule: dict[str, Any], root: etree._Element) -> list[dict[str, Any]]:
    if rule.get("kind") == "jsonld":
        posts = []
        for obj in _postings(root):
            keys = dict(_JSONLD_KEYS, body="articleBody" if obj.get("articleBody") else "text",
                        date="datePublished" if obj.get("datePublished") else "dateCreated",
                        post_id="url" if obj.get("url") else "@id")
            posts.append(_post(obj, keys))
        return posts
    for blob in _blobs(root):
        objects = _at(blob, rule["path"])
        if isinstance(objects, list) and objects and all(isinstance(o, dict) for o in objects):
            return [_post(o, rule["keys"]) for o in objects]
    return []
