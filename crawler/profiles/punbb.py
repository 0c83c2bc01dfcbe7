"""Punbb: an engine profile written by
``python -m crawler new-engine punbb`` on 2026-11-29 from http://127.0.0.1:18121/viewtopic.php?id=3.

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


class Punbb(TemplateProfile):
    name = 'punbb'
    detect_order = 900
    generator_prefixes = ()
    markers = ('div#brd-head', 'div#brd-messages', 'div#brd-wrap')
    min_markers = 2
    limits = frozenset(['edits', 'quote_ids'])
    created_precision = 'time'
    TEMPLATE: ClassVar[dict[str, Any]] = {
        'board_paging': {
            'base': 1,
            'kind': 'param',
            'next_xpath': "//link[@rel='next']",
            'param': 'p',
            'regex': '[?&;]p=(\\d+)(?:[&;#]|$)',
            'step': 1,
        },
        'board_url': '^/viewforum\\.php\\?(?:.*[&;])?id=(?P<bid>\\d+)(?:[^0-9]|$)',
        'breadcrumbs': "(//div[@id='brd-crumbs-top'])[1]//a[@href]",
        'format': 1,
        'host': '',
        'paging': {
            'base': 1,
            'kind': 'param',
            'next_xpath': "//link[@rel='next']",
            'param': 'p',
            'regex': '[?&;]p=(\\d+)(?:[&;#]|$)',
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
                'regex': '[?&;]id=([^&;#]+)',
                'row': 0,
                'value': '@href',
                'xpath': './/a[@title]',
            },
            'body': {
                'regex': None,
                'row': 0,
                'value': 'html',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " post-entry ')]//div"
                ),
            },
            'body_strip': [],
            'data': None,
            'date': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': ".//a[contains(concat(' ', normalize-space(@class), ' '), ' permalink ')]",
            },
            'date_order': None,
            'date_precision': 'time',
            'position': None,
            'position_delta': 0,
            'post_id': {
                'regex': '(?:[#?&;](?:p|pid|post|msg|comment|reply)[=_-]?|/posts?/|msg)(\\d+)',
                'row': 0,
                'value': '@href',
                'xpath': ".//a[contains(concat(' ', normalize-space(@class), ' '), ' permalink ')]",
            },
            'record': "//div[contains(concat(' ', normalize-space(@class), ' '), ' post ')]",
            'span': 1,
        },
        'posts_per_page': 10,
        'repeats_first_post': False,
        'repeats_last_post': False,
        'source': 'html',
        'thread_link': None,
        'thread_params': ['id', 'p'],
        'thread_row': None,
        'thread_url': '^/viewtopic\\.php\\?(?:.*[&;])?id=(?P<tid>\\d+)(?:[^0-9]|$)',
        'title': {
            'strip': [],
            'xpath': '(//h1/a)[1]',
        },
    }
