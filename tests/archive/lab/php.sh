#!/usr/bin/env bash
# The PHP CLI of a lab instance, as up.sh runs seed.php: as www-data, with its private MariaDB socket.
#   bash php.sh STATE_DIR SCRIPT.php ARGS...     (STATE_DIR: /tmp/acceptance/phpbb-big)
set -euo pipefail
STATE="$1"; shift
SOCK="$STATE/mysqlrun/mysqld.sock"
exec runuser -u www-data -- php -d "mysqli.default_socket=$SOCK" -d "pdo_mysql.default_socket=$SOCK" \
  -d date.timezone=UTC -d memory_limit=512M -d display_errors=stderr -d log_errors=0 "$@"
