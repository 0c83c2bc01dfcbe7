from django.urls import include, path
from machina import urls as machina_urls
urlpatterns = [path("", include(machina_urls))]
