"""Seed django-machina with the lab MyBB truth's content; write truth.json from the database."""
import json, os, sys
from datetime import datetime
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
import django
django.setup()
from django.contrib.auth.models import User
from machina.apps.forum.models import Forum
from machina.apps.forum_conversation.models import Post, Topic
from machina.apps.forum_permission.models import ForumPermission, UserForumPermission

src = json.load(open("/work/shared/engines/mybb/truth.json"))
users = {}
def user(name):
    if name not in users:
        users[name] = User.objects.create_user(name, f"{name}@example.org", "x")
    return users[name]
for perm in ("can_see_forum", "can_read_forum"):
    UserForumPermission.objects.create(permission=ForumPermission.objects.get(codename=perm), anonymous_user=True, has_perm=True, forum=None)
    UserForumPermission.objects.create(permission=ForumPermission.objects.get(codename=perm), authenticated_user=True, has_perm=True, forum=None)
boards = {}
out_threads = []
for thread in src["threads"]:
    if thread["board"] not in boards:
        boards[thread["board"]] = Forum.objects.create(name=thread["board"], type=Forum.FORUM_POST)
    forum = boards[thread["board"]]
    first = thread["posts"][0]
    topic = Topic.objects.create(forum=forum, subject=thread["title"], poster=user(first["author"]), type=Topic.TOPIC_POST, status=Topic.TOPIC_UNLOCKED, approved=True)
    posts = []
    for p in thread["posts"]:
        text = p["body_text"]
        post = Post.objects.create(topic=topic, poster=user(p["author"]), subject=thread["title"] if p["position"] == 1 else f"Re: {thread['title']}", content=text, approved=True)
        Post.objects.filter(pk=post.pk).update(created=datetime.fromisoformat(p["created"]), updated=datetime.fromisoformat(p["created"]))
        posts.append({"id": post.pk, "author": p["author"], "created": p["created"], "position": p["position"], "body_text": text})
    topic.refresh_from_db(); topic.update_trackers()
    Topic.objects.filter(pk=topic.pk).update(created=datetime.fromisoformat(first["created"]), last_post_on=datetime.fromisoformat(thread["posts"][-1]["created"]))
    out_threads.append({"id": topic.pk, "title": thread["title"], "board": thread["board"], "posts": posts})
for forum in boards.values():
    forum.refresh_from_db(); forum.update_trackers()
json.dump({"engine": "django-machina 1.3.1 (PyPI), default templates", "base_url": "http://127.0.0.1:18095/", "threads": out_threads},
          open("truth.json", "w"), ensure_ascii=False, indent=1)
print(len(out_threads), sum(len(t["posts"]) for t in out_threads))
