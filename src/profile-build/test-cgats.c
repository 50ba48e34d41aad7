/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placeholder */
int main(void) { return 0; }
