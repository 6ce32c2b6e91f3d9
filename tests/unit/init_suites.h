/* SPDX-License-Identifier: MIT */
/* The suites of build/host/unit-init: init/ files versus fake_sys.c. */
SUITE(init_room)
SUITE(init_fsck)
SUITE(init_firstboot)
SUITE(init_run)
SUITE(init_flash)
