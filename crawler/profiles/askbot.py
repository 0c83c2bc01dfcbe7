"""Askbot: an engine profile written by
``python -m crawler new-engine askbot`` on 2026-11-29 from http://127.0.0.1:18127/question/5/thread-02-encoding-problems-bian-ma-wen-ti/.

Read with a fixed template (:mod:`crawler.profiles.template_profile`): ``posts.record`` is the
XPath of a post, its fields are XPath rules relative to it; ``thread_url`` and ``board_url``
are the URL patterns of the page kinds (groups ``tid``/``bid``); ``paging`` says how a thread's
pages are numbered, ``board_paging`` a board's. Detected by the engine's markup (``markers``,
``generator_prefixes``), on any host.

Where the command was unsure:
* quotes and edit marks are not read (limits quote_ids, edits): add selectors by hand if the
  engine shows them
* no thread page names its board by an id (limit board_ids)
* a repeated post: later pages show the opening post again on top (limit repeated_posts; the
  profile drops it and counts positions without it)
* no board URL pattern was learned: boards are not told apart from pages
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile


class Askbot(TemplateProfile):
    name = 'askbot'
    detect_order = 900
    generator_prefixes = ()
    markers = ('div.js-dropdown-trigger', 'ul.js-dropdown-target', 'ul.tags')
    min_markers = 2
    limits = frozenset(['board_ids', 'edits', 'quote_ids', 'repeated_posts'])
    created_precision = 'time'
    thread_id_in_page = {
        'regex': '^js\\-question\\-title\\-0*(\\d+)$',
        'xpath': '//h1/@id',
    }
    TEMPLATE: ClassVar[dict[str, Any]] = {
        'board_id_in_page': None,
        'board_paging': None,
        'board_url': None,
        'breadcrumbs': None,
        'format': 1,
        'host': '',
        'later_page_posts': 10,
        'list_counts_posts': False,
        'paging': {
            'base': 1,
            'kind': 'param',
            'next_xpath': None,
            'param': 'page',
            'regex': '[?&;,]page=(\\d+)(?:[&;,#]|$)',
            'step': 1,
        },
        'posts': {
            'author': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': (
                    ".//a[contains(concat(' ', normalize-space(@class), ' '), ' u"
                    "ser-name-link ')]"
                ),
            },
            'author_id': {
                'regex': '/(?:users?|members?|u|profile|people|author)/([^/?#&]+)',
                'row': 0,
                'value': '@href',
                'xpath': (
                    ".//a[contains(concat(' ', normalize-space(@class), ' '), ' u"
                    "ser-name-link ')]"
                ),
            },
            'body': {
                'regex': None,
                'row': 0,
                'value': 'html',
                'xpath': ".//div[starts-with(@id, 'js-post-body-')]//div",
            },
            'body_strip': [],
            'data': None,
            'date': {
                'regex': '(date in text)',
                'row': 0,
                'value': '@title',
                'xpath': './/abbr[@title]',
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
                "/html/body/div[4]/div/main/div[starts-with(@id, 'js-post-') "
                "and translate(substring-after(@id, 'js-post-'), '0123456789'"
                ", '') = '']"
            ),
            'span': 1,
            'utc_offset': None,
        },
        'posts_per_page': 11,
        'repeats_first_post': True,
        'repeats_last_post': False,
        'source': 'html',
        'thread_id_in_page': None,
        'thread_link': None,
        'thread_params': [],
        'thread_row': None,
        'thread_url': '^/question/(?P<tid>(?<!%)(?<!%[0-9A-Fa-f])\\d+)(?:[/?#;&]|$)',
        'title': {
            'strip': [' - My site'],
            'xpath': None,
        },
    }
