"""Misago: an engine profile written by
``python -m crawler new-engine misago`` on 2026-11-29 from http://127.0.0.1:18116/t/thread-05-how-do-i-paginate/5/.

Read with a fixed template (:mod:`crawler.profiles.template_profile`): ``posts.record`` is the
XPath of a post, its fields are XPath rules relative to it; ``thread_url`` and ``board_url``
are the URL patterns of the page kinds (groups ``tid``/``bid``); ``paging`` says how a thread's
pages are numbered, ``board_paging`` a board's. Detected by the engine's markup (``markers``,
``generator_prefixes``), on any host.

Where the command was unsure:
* robots.txt disallows a JSON API under /api/ (http://127.0.0.1:18116/api/)
* quotes and edit marks are not read (limits quote_ids, edits): add selectors by hand if the
  engine shows them
* a repeated post: each later page shows the previous page's last post again on top (limit
  repeated_posts; the profile drops it and counts positions without it)
* no board URL pattern was learned: boards are not told apart from pages
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawler.profiles.template_profile import TemplateProfile


class Misago(TemplateProfile):
    name = 'misago'
    detect_order = 900
    generator_prefixes = ()
    markers = ('div#auth-message-mount', 'div#misago-container', 'div#snackbar-mount')
    min_markers = 2
    limits = frozenset(['edits', 'quote_ids', 'repeated_posts'])
    created_precision = 'time'
    TEMPLATE: ClassVar[dict[str, Any]] = {
        'board_paging': None,
        'board_url': None,
        'breadcrumbs': "//*[contains(@itemtype, 'BreadcrumbList')]//a[@href]",
        'format': 1,
        'host': '',
        'later_page_posts': 9,
        'list_counts_posts': False,
        'paging': {
            'base': 1,
            'kind': 'path',
            'next_xpath': "//link[@rel='next']",
            'param': None,
            'regex': '^/t/[^/?#&;]+/\\d+/(\\d+)(?:[/?#]|$)',
            'step': 1,
        },
        'posts': {
            'author': {
                'regex': None,
                'row': 0,
                'value': '.',
                'xpath': ".//*[@itemprop='author']",
            },
            'author_id': None,
            'body': {
                'regex': None,
                'row': 0,
                'value': 'html',
                'xpath': ".//*[@itemprop='articleBody' or @itemprop='text']",
            },
            'body_strip': [],
            'data': None,
            'date': {
                'regex': None,
                'row': 0,
                'value': '@datetime',
                'xpath': ".//*[@itemprop='datePublished' or @itemprop='dateCreated']",
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
                '//*[@itemscope][substring(@itemtype, string-length(@itemtype'
                ") - 21) = 'DiscussionForumPosting' or substring(@itemtype, s"
                "tring-length(@itemtype) - 17) = 'SocialMediaPosting' or subs"
                "tring(@itemtype, string-length(@itemtype) - 6) = 'Comment' o"
                "r substring(@itemtype, string-length(@itemtype) - 5) = 'Answ"
                "er' or substring(@itemtype, string-length(@itemtype) - 7) = "
                "'Question']"
            ),
            'span': 1,
            'utc_offset': None,
        },
        'posts_per_page': 10,
        'repeats_first_post': False,
        'repeats_last_post': True,
        'source': 'microdata',
        'thread_link': None,
        'thread_params': [],
        'thread_row': None,
        'thread_url': '^/t/[^/?#&;]+/(?P<tid>\\d+)(?:[/?#;&]|$)',
        'title': {
            'strip': [],
            'xpath': '//h1',
        },
    }
