"""Esotalk: an engine profile written by
``python -m crawler new-engine esotalk`` on 2026-11-29 from http://127.0.0.1:18123/4-thread-02-encoding-problems-bian-ma-wen-ti.

Read with a fixed template (:mod:`crawler.profiles.template_profile`): ``posts.record`` is the
XPath of a post, its fields are XPath rules relative to it; ``thread_url`` and ``board_url``
are the URL patterns of the page kinds (groups ``tid``/``bid``); ``paging`` says how a thread's
pages are numbered, ``board_paging`` a board's. Detected by the engine's markup (``markers``,
``generator_prefixes``), on any host.

Where the command was unsure:
* quotes and edit marks are not read (limits quote_ids, edits): add selectors by hand if the
  engine shows them
* declared with --limit: board_ids
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile


class Esotalk(TemplateProfile):
    name = 'esotalk'
    detect_order = 900
    generator_prefixes = ()
    markers = ('div#hdr', 'div#hdr-content', 'div#hdr-inner')
    min_markers = 2
    limits = frozenset(['board_ids', 'edits', 'quote_ids'])
    created_precision = 'time'
    TEMPLATE: ClassVar[dict[str, Any]] = {
        'board_paging': {
            'base': 1,
            'kind': 'next',
            'next_xpath': None,
            'param': None,
            'regex': None,
            'step': 1,
        },
        'board_url': '^/[^/?#&;]+/board\\-(?P<bid>\\d+)(?:[/?#;&]|$)',
        'breadcrumbs': (
            ".//a[contains(concat(' ', normalize-space(@class), ' '), ' c"
            "hannel ')]"
        ),
        'format': 1,
        'host': '',
        'list_counts_posts': False,
        'paging': {
            'base': 1,
            'kind': 'path',
            'next_xpath': None,
            'param': None,
            'regex': '/p(\\d+)(?:[/?#]|$)',
            'step': 1,
        },
        'posts': {
            'author': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': './/a[@title]',
            },
            'author_id': {
                'regex': '/(?:users?|members?|u|profile|people|author)/([^/?#&]+)',
                'row': 0,
                'value': '@href',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " avatar ')]//a"
                ),
            },
            'body': {
                'regex': None,
                'row': 0,
                'value': 'html',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " postBody ')]"
                ),
            },
            'body_strip': [],
            'data': None,
            'date': {
                'regex': None,
                'row': 0,
                'value': '@data-timestamp',
                'xpath': (
                    ".//a[contains(concat(' ', normalize-space(@class), ' '), ' t"
                    "ime ')]"
                ),
            },
            'date_order': None,
            'date_precision': 'time',
            'position': None,
            'position_delta': 0,
            'post_id': {
                'regex': (
                    '(?:[#?&;](?:p|pid|post|msg|comment|reply)[=_-]?|/posts?/|msg'
                    ')(\\d+)'
                ),
                'row': 0,
                'value': '@href',
                'xpath': (
                    ".//a[contains(concat(' ', normalize-space(@class), ' '), ' t"
                    "ime ')]"
                ),
            },
            'record': "//*[@id='conversationPosts']/li[@data-index]",
            'span': 1,
            'utc_offset': None,
        },
        'posts_per_page': 10,
        'repeats_first_post': False,
        'repeats_last_post': False,
        'source': 'html',
        'thread_link': None,
        'thread_params': [],
        'thread_row': None,
        'thread_url': '^/(?P<tid>\\d+)(?:[^0-9/?#&;][^/?#&;]*)?(?:[/?#;&]|$)',
        'title': {
            'strip': [],
            'xpath': "//h1[@id='conversationTitle']",
        },
    }
