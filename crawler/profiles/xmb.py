"""Xmb: an engine profile written by
``python -m crawler new-engine xmb`` on 2026-11-29 from http://127.0.0.1:18122/viewthread.php?tid=5.

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


class Xmb(TemplateProfile):
    name = 'xmb'
    detect_order = 900
    generator_prefixes = ()
    markers = ('font.smalltxt', 'td.nav', 'td.navtd')
    min_markers = 2
    limits = frozenset(['edits', 'quote_ids'])
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
        'board_url': '^/forumdisplay\\.php\\?(?:.*[&;])?fid=(?P<bid>\\d+)(?:[^0-9]|$)',
        'breadcrumbs': (
            "(//td[contains(concat(' ', normalize-space(@class), ' '), ' "
            "nav ')])[1]//a[@href]"
        ),
        'format': 1,
        'host': '',
        'list_counts_posts': False,
        'paging': {
            'base': 1,
            'kind': 'param',
            'next_xpath': "//a[@rel='next']",
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
                    ".//font[contains(concat(' ', normalize-space(@class), ' '), "
                    "' mediumtxt ')]//a"
                ),
            },
            'author_id': {
                'regex': '(\\d+)',
                'row': 0,
                'value': '@href',
                'xpath': (
                    ".//font[contains(concat(' ', normalize-space(@class), ' '), "
                    "' mediumtxt ')]//a"
                ),
            },
            'body': {
                'regex': None,
                'row': 1,
                'value': 'html',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " mediumtxt ')]"
                ),
            },
            'body_strip': [],
            'data': None,
            'date': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': './/a[@title]',
            },
            'date_order': 'DMY',
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
                'xpath': './/a[@title]',
            },
            'record': "//tr[*[@rowspan='3']]",
            'span': 3,
            'utc_offset': None,
        },
        'posts_per_page': 10,
        'repeats_first_post': False,
        'repeats_last_post': False,
        'source': 'html',
        'thread_link': None,
        'thread_params': ['page', 'tid'],
        'thread_row': None,
        'thread_url': '^/viewthread\\.php\\?(?:.*[&;])?tid=(?P<tid>\\d+)(?:[^0-9]|$)',
        'title': {
            'strip': [],
            'xpath': (
                "//font[contains(concat(' ', normalize-space(@class), ' '), '"
                " subject ')]"
            ),
        },
    }
