import os
from machina import MACHINA_MAIN_TEMPLATE_DIR, MACHINA_MAIN_STATIC_DIR
BASE = os.path.dirname(os.path.abspath(__file__))
SECRET_KEY = "lab-only"
DEBUG = False
ALLOWED_HOSTS = ["*"]
ROOT_URLCONF = "urls"
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
    "django.contrib.messages", "django.contrib.staticfiles", "mptt", "haystack", "widget_tweaks",
    "machina", "machina.apps.forum", "machina.apps.forum_conversation",
    "machina.apps.forum_conversation.forum_attachments", "machina.apps.forum_conversation.forum_polls",
    "machina.apps.forum_feeds", "machina.apps.forum_moderation", "machina.apps.forum_search",
    "machina.apps.forum_tracking", "machina.apps.forum_member", "machina.apps.forum_permission",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware", "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware", "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "machina.apps.forum_permission.middleware.ForumPermissionMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [MACHINA_MAIN_TEMPLATE_DIR], "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.debug", "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth", "django.contrib.messages.context_processors.messages",
        "machina.core.context_processors.metadata"]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ.get("MACHINA_DB", "/tmp/machina-lab.sqlite3")}}
STATIC_URL = "/static/"
STATICFILES_DIRS = (MACHINA_MAIN_STATIC_DIR,)
HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.simple_backend.SimpleEngine"}}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
          "machina_attachments": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": "/tmp/machina-lab-cache"}}
USE_TZ = True
TIME_ZONE = "UTC"
MACHINA_FORUM_TOPICS_NUMBER_PER_PAGE = 3
MACHINA_DEFAULT_AUTHENTICATED_USER_FORUM_PERMISSIONS = ["can_see_forum", "can_read_forum"]
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
