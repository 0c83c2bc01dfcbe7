# A crawler node: `docker build -t forum-crawler .`, then run it with REDIS_URL and
# CRAWLER_NODE_ID in its environment (see k8s/README.md).

# -- build: compilers only here -------------------------------------------------
FROM python:3.12-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential \
 && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY crawler ./crawler
# not editable: the package with its data (the Lua scripts, serve-fixture's sites)
RUN pip install .

# -- runtime: the virtualenv and the project file, nothing else -----------------
FROM python:3.12-slim
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /app crawler
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
# scrapy.cfg makes /app the Scrapy project (settings module crawler.settings)
COPY scrapy.cfg ./
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
USER 10001:10001
EXPOSE 8080
# Runs `scrapy crawl <args>` in this process with settings from the environment
# (REDIS_URL, CRAWLER_*, SCRAPY_<SETTING>); SIGTERM is a graceful leave.
ENTRYPOINT ["python", "-m", "crawler", "node"]
CMD ["follow"]
