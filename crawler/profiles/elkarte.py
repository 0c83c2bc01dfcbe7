"""Elkarte: an engine profile written by
``python -m crawler new-engine elkarte`` on 2026-11-29 from http://127.0.0.1:18125/index.php?topic=4.0.

Read with a fixed template (:mod:`crawler.profiles.template_profile`): ``posts.record`` is the
XPath of a post, its fields are XPath rules relative to it; ``thread_url`` and ``board_url``
are the URL patterns of the page kinds (groups ``tid``/``bid``); ``paging`` says how a thread's
pages are numbered, ``board_paging`` a board's. Detected by the engine's markup (``markers``,
``generator_prefixes``), on any host.

Where the command was unsure:
* quotes and edit marks are not read (limits quote_ids, edits): add selectors by hand if the
  engine shows them
* no board URL pattern was learned: boards are not told apart from pages
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile


class Elkarte(TemplateProfile):
    name = 'elkarte'
    detect_order = 900
    generator_prefixes = ()
    markers = ('article.forumposts', 'article.post_wrapper', 'li.subsections')
    min_markers = 2
    limits = frozenset(['edits', 'quote_ids'])
    created_precision = 'time'
    TEMPLATE: ClassVar[dict[str, Any]] = {
        'board_paging': None,
        'board_url': None,
        'breadcrumbs': (
            "(//ul[contains(concat(' ', normalize-space(@class), ' '), ' "
            "navigate_section ')])[1]//a[@href]"
        ),
        'format': 1,
        'host': '',
        'later_page_posts': None,
        'list_counts_posts': False,
        'paging': {
            'base': 0,
            'kind': 'param',
            'next_xpath': "//link[@rel='next']",
            'param': 'topic',
            'regex': '[?&;,]topic=\\d+\\.(\\d+)(?:[&;,#]|$)',
            'step': 10,
        },
        'posts': {
            'author': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': (
                    ".//a[contains(concat(' ', normalize-space(@class), ' '), ' l"
                    "inklevel1 ')]"
                ),
            },
            'author_id': {
                'regex': '[?&;]u=([^&;#]+)',
                'row': 0,
                'value': '@href',
                'xpath': (
                    ".//a[contains(concat(' ', normalize-space(@class), ' '), ' l"
                    "inklevel1 ')]"
                ),
            },
            'body': {
                'regex': None,
                'row': 0,
                'value': 'html',
                'xpath': ".//section[starts-with(@id, 'msg_')]",
            },
            'body_strip': [],
            'data': None,
            'date': {
                'regex': None,
                'row': 0,
                'value': '@datetime',
                'xpath': './/time[@datetime]',
            },
            'date_order': None,
            'date_precision': 'time',
            'position': {
                'regex': '(\\d+)',
                'row': 0,
                'value': '.',
                'xpath': ".//h5[starts-with(@id, 'info_')]//a",
            },
            'position_delta': 1,
            'post_id': {
                'regex': (
                    '(?:[#?&;](?:p|pid|post|msg|comment|reply)[=_-]?|/posts?/|msg'
                    ')(\\d+(?:\\.\\d+)?)(?!\\.?\\d)'
                ),
                'row': 0,
                'value': '@href',
                'xpath': ".//h5[starts-with(@id, 'info_')]//a",
            },
            'record': (
                "//article[contains(concat(' ', normalize-space(@class), ' ')"
                ", ' forumposts ')]"
            ),
            'span': 1,
            'utc_offset': None,
        },
        'posts_per_page': 10,
        'repeats_first_post': False,
        'repeats_last_post': False,
        'source': 'html',
        'thread_link': None,
        'thread_params': ['topic'],
        'thread_row': None,
        'thread_url': (
            '^/index\\.php\\?(?:.*[&;])?topic=(?P<tid>(?<!%)(?<!%[0-9A-Fa-f'
            '])\\d+)(?:[^0-9]|$)'
        ),
        'title': {
            'strip': [],
            'xpath': (
                "//h2[contains(concat(' ', normalize-space(@class), ' '), ' p"
                "ost_subject ')]"
            ),
        },
    }
