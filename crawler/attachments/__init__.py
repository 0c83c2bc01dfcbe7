"""Attachments and images: the files a forum hosts for its posts, stored once by content.

:mod:`.links` finds them in a post (the profiles' ``attachment_url`` patterns), :mod:`.store`
keeps them as ``FILES_STORE/<sha256[:2]>/<sha256>[.ext]``, :mod:`.pipeline` downloads them.
"""
