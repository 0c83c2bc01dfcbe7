"""Builders of the static fixture forums under ``tests/fixtures/sites/<engine>/``.

Every engine renders the same small forum (:mod:`.content`) in its own real markup, so that the
end-to-end tests cover the same situations on every engine: two boards, a paginated thread list,
a three-page thread with quotes, Chinese text, a code block and an edited post, and a thread
that answers with the engine's soft 404 page.

Run ``python -m tests.extract.sitegen [engine ...]`` to rebuild the static files; the expected
output is then refreshed with ``scripts/update_profile_fixtures.py --overwrite-json``.
"""
