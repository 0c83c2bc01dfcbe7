"""The settings of a plain Scrapy project, for the foreign-spider bench (issue 42).

Only what issue 42 fixes; the scheduler or add-on under test comes on the command line.
"""

BOT_NAME = "foreign"
SPIDER_MODULES = ["benchspiders.follow_all"]
CONCURRENT_REQUESTS = 64
CONCURRENT_REQUESTS_PER_DOMAIN = 1
DOWNLOAD_DELAY = 0
ROBOTSTXT_OBEY = False
LOG_LEVEL = "INFO"
TELNETCONSOLE_ENABLED = False
EXTENSIONS = {"benchext.BenchStats": 0}  # the bench's stats dump (bench/benchext.py)
