#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Makes mapping.db and storage.db fixtures by driving Debian's real colord (1.4.6) with its
# own clients, so the colord import in src/store is tested on files colord itself wrote.
#
# Isolation: everything runs inside a private mount namespace (unshare -m) where
# /var/lib/colord and /run/dbus are fresh tmpfs mounts, on a private dbus-daemon whose socket
# lives in a temp dir. The machine's own /var/lib/colord and system bus are never touched:
# even a client that ignored DBUS_SYSTEM_BUS_ADDRESS would find no socket in /run/dbus.
#
# Needs root (unshare -m, mount), colord, colormgr, dbus-daemon, gdbus, sqlite3.
# Usage: make-fixtures.sh [OUTDIR]   (default: the directory of this script)
set -eu

out=${1:-$(cd "$(dirname "$0")" && pwd)}
out=$(cd "$out" && pwd)

if [ "${TINCT_FIXTURE_NS:-}" != 1 ]; then
        exec env TINCT_FIXTURE_NS=1 unshare --mount --propagation private "$0" "$out"
fi

mount -t tmpfs -o mode=0755 tmpfs /var/lib/colord
mount -t tmpfs -o mode=0755 tmpfs /run/dbus
mkdir /var/lib/colord/icc
chown -R colord:colord /var/lib/colord

tmp=$(mktemp -d)
chmod 0755 "$tmp"
cleanup() {
        [ -n "${colord_pid:-}" ] && kill "$colord_pid" 2>/dev/null || true
        [ -n "${bus_pid:-}" ] && kill "$bus_pid" 2>/dev/null || true
        rm -rf "$tmp"
}
trap cleanup EXIT

cat >"$tmp/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$tmp/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile &
bus_pid=$!
for _ in $(seq 50); do [ -S "$tmp/bus.sock" ] && break; sleep 0.1; done
chmod 0666 "$tmp/bus.sock"
DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/bus.sock"
export DBUS_SYSTEM_BUS_ADDRESS

# colord runs as its own user, as on Debian. Root callers skip polkit, and so does the
# daemon's own uid (colord §12.2), which gives a second uid for per-user titles.
setpriv --reuid=colord --regid=colord --init-groups \
        env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" /usr/libexec/colord --verbose \
        >"$tmp/colord.log" 2>&1 &
colord_pid=$!
for _ in $(seq 100); do
        gdbus call --system --dest org.freedesktop.ColorManager \
                --object-path /org/freedesktop/ColorManager \
                --method org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1 && break
        sleep 0.1
done

as_colord() { setpriv --reuid=colord --regid=colord --init-groups "$@"; }
profile_path() { # profile id -> object path
        gdbus call --system --dest org.freedesktop.ColorManager \
                --object-path /org/freedesktop/ColorManager \
                --method org.freedesktop.ColorManager.FindProfileById "$1" |
                sed -n "s/^(objectpath '\\(.*\\)',)\$/\\1/p"
}
device_path() { # device id -> object path
        gdbus call --system --dest org.freedesktop.ColorManager \
                --object-path /org/freedesktop/ColorManager \
                --method org.freedesktop.ColorManager.FindDeviceById "$1" |
                sed -n "s/^(objectpath '\\(.*\\)',)\$/\\1/p"
}
profile_id_of() { # file name -> profile id
        colormgr find-profile-by-filename "$1" | sed -n 's/^Profile ID: *//p'
}

srgb=$(profile_id_of /usr/share/color/icc/colord/sRGB.icc)
adobe=$(profile_id_of /usr/share/color/icc/colord/AdobeRGB1998.icc)
bluish=$(profile_id_of /usr/share/color/icc/colord/Bluish.icc)
[ -n "$srgb" ] && [ -n "$adobe" ] && [ -n "$bluish" ] || { echo "profiles not found" >&2; exit 1; }

# 1. A disk display. Kind is given at creation only, which colord does not store (colord §16.7).
colormgr create-device xrandr-Fixture-Display disk display
colormgr device-set-vendor xrandr-Fixture-Display "Fixture Vendor"
colormgr device-set-model xrandr-Fixture-Display "Fixture Model 27"
colormgr device-set-serial xrandr-Fixture-Display "SN-0001"
colormgr device-add-profile xrandr-Fixture-Display "$srgb"
sleep 0.01
colormgr device-add-profile xrandr-Fixture-Display "$adobe"
sleep 0.01
colormgr device-make-profile-default xrandr-Fixture-Display "$srgb"
# Added then removed: RemoveProfile writes the pair with timestamp 0.
colormgr device-add-profile xrandr-Fixture-Display "$bluish"
gdbus call --system --dest org.freedesktop.ColorManager \
        --object-path "$(device_path xrandr-Fixture-Display)" \
        --method org.freedesktop.ColorManager.Device.RemoveProfile "$(profile_path "$bluish")" >/dev/null
colormgr device-set-enabled xrandr-Fixture-Display false

# 2. A disk printer whose Kind is set after creation, so colord does store it.
colormgr create-device cups-Fixture-Printer disk printer
colormgr device-set-kind cups-Fixture-Printer printer
colormgr device-set-model cups-Fixture-Printer "Fixture Printer"
colormgr device-add-profile cups-Fixture-Printer "$adobe"

# 3. A device of scope normal (a temp one would vanish with colormgr): only its Enabled
#    row reaches storage.db.
colormgr create-device sane-Fixture-Scanner normal scanner
colormgr device-set-enabled sane-Fixture-Scanner false

# 4. A disk device created and deleted again: nothing of it should remain.
colormgr create-device xrandr-Fixture-Gone disk display
colormgr delete-device xrandr-Fixture-Gone

# 5. Per-user titles: root (uid 0) and colord's own uid.
colormgr profile-set-property "$srgb" Title "sRGB for root"
as_colord env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
        colormgr profile-set-property "$srgb" Title "sRGB für colord"
as_colord env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
        colormgr profile-set-property "$adobe" Title "Adobe (colord)"

kill -TERM "$colord_pid"
wait "$colord_pid" 2>/dev/null || true
colord_pid=

cp /var/lib/colord/mapping.db /var/lib/colord/storage.db "$out/"
chmod 0644 "$out/mapping.db" "$out/storage.db"

# A text dump beside the binaries, so a reviewer sees what the fixtures contain. Timestamps
# are real µs times from this run.
{
        echo "# made by make-fixtures.sh with $(dpkg-query -W -f '${Package} ${Version}' colord) on $(date -u +%Y-%m-%d)"
        echo "# sRGB=$srgb AdobeRGB1998=$adobe Bluish=$bluish"
        echo "## mapping.db"
        sqlite3 "$out/mapping.db" .dump
        echo "## storage.db"
        sqlite3 "$out/storage.db" .dump
} >"$out/fixtures.sql"
echo "fixtures written to $out"
