/* SPDX-License-Identifier: GPL-2.0-or-later */
/* syscall-allow FILE -- COMMAND...: runs COMMAND under a seccomp allow-list, the system
 * calls named in FILE (one per line, as unit-syscalls.py prints them), every other call
 * failing with EPERM, as systemd's SystemCallFilter= + SystemCallErrorNumber=EPERM does.
 * For tests that run tinctd with the shipped unit's filter (tests/bus/test-confined.c);
 * names this libseccomp does not know are skipped. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
        if (argc < 4 || strcmp(argv[2], "--") != 0) {
                fprintf(stderr, "usage: syscall-allow FILE -- COMMAND...\n");
                return 2;
        }
        FILE *f = fopen(argv[1], "re");
        if (!f) {
                perror(argv[1]);
                return 1;
        }
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
        if (!ctx)
                return 1;
        char line[128];
        unsigned n = 0;
        while (fgets(line, sizeof line, f)) {
                line[strcspn(line, "\n")] = 0;
                int nr = seccomp_syscall_resolve_name(line);
                if (nr == __NR_SCMP_ERROR)
                        continue;
                if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) == 0)
                        n++;
        }
        fclose(f);
        if (n == 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0) {
                fprintf(stderr, "syscall-allow: cannot install the filter (%u calls)\n", n);
                return 1;
        }
        execvp(argv[3], argv + 3);
        perror(argv[3]);
        return 127;
}
