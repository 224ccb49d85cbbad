#!/usr/bin/env bash
# Sourced by .ci/run: a throwaway PostgreSQL (Debian's postgresql package, 15 on bookworm) for the
# connector tests, on 127.0.0.1 with a known password, in a temporary directory. Exports
# QUIRE_TEST_PG_DSN; the tests under test/connector skip (with a message) when it is unset.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
QUIRE_PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
QUIRE_PG_DIR=$(mktemp -d /tmp/quire-pg.XXXXXX)
# A free port, not a fixed one: other suites (the wire-protocol server) listen on ports of their own.
QUIRE_PG_PORT=${QUIRE_PG_PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}
echo quire > "$QUIRE_PG_DIR/pwfile"
chown -R postgres "$QUIRE_PG_DIR"
# initdb and the server refuse to run as root: run them as the package's postgres user.
su postgres -s /bin/sh -c "'$QUIRE_PG_BIN/initdb' -D '$QUIRE_PG_DIR/data' -U quire --pwfile='$QUIRE_PG_DIR/pwfile' -A scram-sha-256 --no-sync -E UTF8 --locale=C.UTF-8" >/dev/null
su postgres -s /bin/sh -c "'$QUIRE_PG_BIN/pg_ctl' -D '$QUIRE_PG_DIR/data' -w -l '$QUIRE_PG_DIR/log' -o \"-c listen_addresses=127.0.0.1 -p $QUIRE_PG_PORT -k '$QUIRE_PG_DIR' -c fsync=off\" start" >/dev/null
export QUIRE_TEST_PG_DSN="postgres://quire:quire@127.0.0.1:$QUIRE_PG_PORT/postgres"
quire_stop_postgres() {
  su postgres -s /bin/sh -c "'$QUIRE_PG_BIN/pg_ctl' -D '$QUIRE_PG_DIR/data' -m fast stop" >/dev/null 2>&1 || true
}
trap quire_stop_postgres EXIT
