"""Bbpress: an engine profile written by
``python -m crawler new-engine bbpress`` on 2026-11-29 from http://127.0.0.1:18117/forums/topic/thread-02-encoding-problems-%e7%bc%96%e7%a0%81%e9%97%ae%e9%a2%98/.

Read with a fixed template (:mod:`crawler.profiles.template_profile`): ``posts.record`` is the
XPath of a post, its fields are XPath rules relative to it; ``thread_url`` and ``board_url``
are the URL patterns of the page kinds (groups ``tid``/``bid``); ``paging`` says how a thread's
pages are numbered, ``board_paging`` a board's. Detected by the engine's markup (``markers``,
``generator_prefixes``), on any host.

Where the command was unsure:
* quotes and edit marks are not read (limits quote_ids, edits): add selectors by hand if the
  engine shows them
* no thread page names its board by an id (limit board_ids)
* no board URL pattern was learned: boards are not told apart from pages
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile


class Bbpress(TemplateProfile):
    name = 'bbpress'
    detect_order = 900
    generator_prefixes = ()
    markers = ('a.bbp-author-link', 'span.bbp-author-avatar', 'span.bbp-author-name')
    min_markers = 2
    limits = frozenset(['board_ids', 'edits', 'quote_ids'])
    created_precision = 'time'
    thread_id_in_page = {
        'regex': '(?:^|\\s)postid\\-0*(\\d+)(?:\\s|$)',
        'xpath': '//body/@class',
    }
    TEMPLATE: ClassVar[dict[str, Any]] = {
        'board_paging': None,
        'board_url': None,
        'breadcrumbs': (
            "(//div[contains(concat(' ', normalize-space(@class), ' '), '"
            " bbp-breadcrumb ')])[1]//a[@href]"
        ),
        'format': 1,
        'host': '',
        'later_page_posts': None,
        'list_counts_posts': False,
        'paging': {
            'base': 1,
            'kind': 'path',
            'next_xpath': (
                "//a[contains(concat(' ', normalize-space(@class), ' '), ' ne"
                "xt ')]"
            ),
            'param': None,
            'regex': '/page/(\\d+)(?:[/?#]|$)',
            'step': 1,
        },
        'posts': {
            'author': {
                'regex': None,
                'row': 1,
                'value': '.',
                'xpath': (
                    ".//a[contains(concat(' ', normalize-space(@class), ' '), ' b"
                    "bp-author-link ')]"
                ),
            },
            'author_id': None,
            'body': {
                'regex': None,
                'row': 1,
                'value': 'html',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " bbp-reply-content ')]"
                ),
            },
            'body_strip': [],
            'data': None,
            'date': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': (
                    ".//span[contains(concat(' ', normalize-space(@class), ' '), "
                    "' bbp-reply-post-date ')]"
                ),
            },
            'date_order': None,
            'date_precision': 'time',
            'position': None,
            'position_delta': 0,
            'post_id': {
                'regex': '(\\d+)$',
                'row': 0,
                'value': '@id',
                'xpath': '.',
            },
            'record': (
                "//div[*[contains(concat(' ', normalize-space(@class), ' '), "
                "' bbp-meta ')]]"
            ),
            'span': 2,
            'utc_offset': None,
        },
        'posts_per_page': 10,
        'repeats_first_post': False,
        'repeats_last_post': False,
        'source': 'html',
        'thread_link': None,
        'thread_params': [],
        'thread_row': None,
        'thread_url': (
            '^/forums/topic/(?:[^/?#&;]*[^0-9/?#&;])?(?P<tid>(?<!%)(?<!%['
            '0-9A-Fa-f])\\d+)(?:[^0-9/?#&;][^/?#&;]*)?(?:[/?#;&]|$)'
        ),
        'title': {
            'strip': [],
            'xpath': (
                "//h1[contains(concat(' ', normalize-space(@class), ' '), ' e"
                "ntry-title ')]"
            ),
        },
    }
