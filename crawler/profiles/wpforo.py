"""Wpforo: an engine profile written by
``python -m crawler new-engine wpforo`` on 2026-11-29 from http://127.0.0.1:18118/community/web-scraping-%e7%88%ac%e8%99%ab%e6%8a%80%e6%9c%af/thread-05-how-do-i-paginate-%e5%a6%82%e4%bd%95%e5%88%86%e9%a1%b5%ef%bc%9f/.

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


class Wpforo(TemplateProfile):
    name = 'wpforo'
    detect_order = 900
    generator_prefixes = ()
    markers = ('div.wpf-author-nicename', 'div.wpf-clear', 'i.wpfsx')
    min_markers = 2
    limits = frozenset(['board_ids', 'edits', 'quote_ids'])
    created_precision = 'time'
    thread_id_in_page = {
        'regex': '^0*(\\d+)$',
        'xpath': '//div/@data-topicid',
    }
    TEMPLATE: ClassVar[dict[str, Any]] = {
        'board_paging': None,
        'board_url': None,
        'breadcrumbs': "//*[contains(@itemtype, 'BreadcrumbList')]//a[@href]",
        'format': 1,
        'host': '',
        'later_page_posts': None,
        'list_counts_posts': False,
        'paging': {
            'base': 1,
            'kind': 'path',
            'next_xpath': "//a[@rel='next']",
            'param': None,
            'regex': '/paged/(\\d+)(?:[/?#]|$)',
            'step': 1,
        },
        'posts': {
            'author': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " author-name ')]"
                ),
            },
            'author_id': None,
            'body': {
                'regex': None,
                'row': 0,
                'value': 'html',
                'xpath': (
                    ".//div[contains(concat(' ', normalize-space(@class), ' '), '"
                    " wpforo-post-content ')]"
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
                    "' wpf-post-date ')]"
                ),
            },
            'date_order': 'DMY',
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
                "//div[starts-with(@id, 'post-') and translate(substring-afte"
                "r(@id, 'post-'), '0123456789', '') = '']"
            ),
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
        'thread_url': (
            '^/community/[^/?#&;]+/(?:[^/?#&;]*[^0-9/?#&;])?(?P<tid>(?<!%'
            ')(?<!%[0-9A-Fa-f])\\d+)(?:[^0-9/?#&;][^/?#&;]*)?(?:[/?#;&]|$)'
        ),
        'title': {
            'strip': [],
            'xpath': "//h1[@id='wpforo-title']",
        },
    }
