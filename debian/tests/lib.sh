# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the tests in debian/tests (sourced): calls to the colour daemon on the system
# bus with busctl and dbus-send, and waiting for a condition with a deadline.
set -eu
CM=org.freedesktop.ColorManager
CM_PATH=/org/freedesktop/ColorManager

ok() { echo "ok: $*"; }
die() { echo "FAIL: $*" >&2; exit 1; }

# cm METHOD SIG ARGS...: a Manager call, its reply as busctl prints it.
cm() { busctl --system call "$CM" "$CM_PATH" "$CM" "$@"; }
# The object path in a reply of one 'o'.
path_of() { sed -n 's/^o "\(.*\)"$/\1/p'; }
device_path() { cm FindDeviceById s "$1" 2>/dev/null | path_of; }
profile_path() { cm FindProfileByFilename s "$1" 2>/dev/null | path_of; }
# prop PATH INTERFACE NAME: the value as busctl prints it.
prop() { busctl --system get-property "$CM" "$1" "$2" "$3"; }

# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds; the deadline is for a machine
# that is very slow, never part of what is tested.
wait_for() {
        local deadline=$(($(date +%s) + $1)) what=$2
        shift 2
        until "$@" >/dev/null 2>&1; do
                [ "$(date +%s)" -lt "$deadline" ] || die "$what (not within the deadline)"
                sleep 0.2
        done
        ok "$what"
}

# A user for the test, made once.
test_user() { id "$1" >/dev/null 2>&1 || useradd -m -s /bin/sh "$1"; }

# The polkit rule of the tests: tinct-allowed may manage colour devices and profiles
# (including install-system-wide, which asks an administrator by default); nothing allows
# tinct-denied, so the policy's defaults (auth_admin for a user with no active session) apply.
polkit_rule() {
        test_user tinct-allowed
        test_user tinct-denied
        mkdir -p /etc/polkit-1/rules.d
        cat >/etc/polkit-1/rules.d/49-tinct-test.rules <<'RULE'
polkit.addRule(function(action, subject) {
        if (action.id.indexOf("org.freedesktop.color-manager.") == 0 && subject.user == "tinct-allowed")
                return polkit.Result.YES;
});
RULE
        chmod 644 /etc/polkit-1/rules.d/49-tinct-test.rules
}
