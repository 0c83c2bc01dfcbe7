"""Usebb: an engine profile written by
``python -m crawler new-engine usebb`` on 2026-11-29 from http://127.0.0.1:18124/topic.php?id=3.

Read with a fixed template (:mod:`crawler.profiles.template_profile`): ``posts.record`` is the
XPath of a post, its fields are XPath rules relative to it; ``thread_url`` and ``board_url``
are the URL patterns of the page kinds (groups ``tid``/``bid``); ``paging`` says how a thread's
pages are numbered, ``board_paging`` a board's. Detected by the engine's markup (``markers``,
``generator_prefixes``), on any host.

Where the command was unsure:
* quotes and edit marks are not read (limits quote_ids, edits): add selectors by hand if the
  engine shows them
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile


class Usebb(TemplateProfile):
    name = 'usebb'
    detect_order = 900
    generator_prefixes = ()
    markers = ('div#pagebox-bg', 'h1#boardname', 'p#logo')
    min_markers = 2
    limits = frozenset(['edits', 'quote_ids'])
    created_precision = 'time'
    TEMPLATE: ClassVar[dict[str, Any]] = {
        'board_paging': {
            'base': 1,
            'kind': 'param',
            'next_xpath': "//a[normalize-space()='>']",
            'param': 'page',
            'regex': '[?&;]page=(\\d+)(?:[&;#]|$)',
            'step': 1,
        },
        'board_url': '^/forum\\.php\\?(?:.*[&;])?id=(?P<bid>\\d+)(?:[^0-9]|$)',
        'breadcrumbs': (
            "(//p[contains(concat(' ', normalize-space(@class), ' '), ' b"
            "readcrumbs ')])[1]//a[@href]"
        ),
        'format': 1,
        'host': '',
        'list_counts_posts': False,
        'paging': {
            'base': 1,
            'kind': 'param',
            'next_xpath': "//a[normalize-space()='>']",
            'param': 'page',
            'regex': '[?&;]page=(\\d+)(?:[&;#]|$)',
            'step': 1,
        },
        'posts': {
            'author': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " posternamecontainer ')]//a"
                ),
            },
            'author_id': {
                'regex': '[?&;]id=([^&;#]+)',
                'row': 0,
                'value': '@href',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " posternamecontainer ')]//a"
                ),
            },
            'body': {
                'regex': None,
                'row': 1,
                'value': 'html',
                'xpath': (
                    ".//td[contains(concat(' ', normalize-space(@class), ' '), ' "
                    "postcontent ')]//div"
                ),
            },
            'body_strip': [],
            'data': None,
            'date': {
                'regex': '(date in text)',
                'row': 0,
                'value': '.',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " postdate ')]"
                ),
            },
            'date_order': None,
            'date_precision': 'time',
            'position': {
                'regex': '^#\\s*(\\d{1,6})\\b',
                'row': 0,
                'value': '.',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " postdate ')]"
                ),
            },
            'position_delta': 0,
            'post_id': {
                'regex': (
                    '(?:[#?&;](?:p|pid|post|msg|comment|reply)[=_-]?|/posts?/|msg'
                    ')(\\d+)'
                ),
                'row': 0,
                'value': '@href',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " postdate ')]//a"
                ),
            },
            'record': (
                "//table[contains(concat(' ', normalize-space(@class), ' '), "
                "' maintable ')]/tr[position() >= 2 and (position() - 2) mod "
                '2 = 0]'
            ),
            'span': 2,
            'utc_offset': None,
        },
        'posts_per_page': 10,
        'repeats_first_post': False,
        'repeats_last_post': False,
        'source': 'html',
        'thread_link': None,
        'thread_params': ['id', 'page'],
        'thread_row': None,
        'thread_url': '^/topic\\.php\\?(?:.*[&;])?id=(?P<tid>\\d+)(?:[^0-9]|$)',
        'title': {
            'strip': [],
            'xpath': "//h3[@id='forumname']",
        },
    }
