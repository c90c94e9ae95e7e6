# Sourced by scripts/test (issue 35): Debian's PostgreSQL from apt when
# missing, and a private cluster for this test run only: initdb in a
# temporary folder owned by the unprivileged `postgres` user (PostgreSQL
# refuses root), listening on 127.0.0.1 and a free port, stopped and removed
# on exit. The tests read its address from FLYBOT_TEST_PG and make one fresh
# database per test (`flybot_store::engine::test_database`).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "Installing Debian's postgresql (apt-get)..."
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
PG_DIR="$(mktemp -d /tmp/flybot-test-pg.XXXXXX)"
PG_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
# As root, the cluster runs as `postgres`; as any other user, as that user.
PG_AS=""
if [ "$(id -u)" -eq 0 ]; then
  chown postgres "$PG_DIR"
  PG_AS="runuser -u postgres --"
fi
$PG_AS "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres >/dev/null
$PG_AS "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
  -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
stop_test_postgres() {
  $PG_AS "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
}
trap stop_test_postgres EXIT
export FLYBOT_TEST_PG="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
# The failover tests restart the cluster; they need to know how.
export FLYBOT_TEST_PG_CTL="$PG_AS $PG_BIN/pg_ctl -D $PG_DIR/data"
