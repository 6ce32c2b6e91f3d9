// SPDX-License-Identifier: MIT
/* Other live systems' parameters: each said in one line, none acting
 * without union.compat=, those of its family acting with it, and an
 * explicit union.* parameter always winning. */
#include <string.h>

#include "conf/config.h"
#include "config_boot.h"
#include "unit.h"

#define BOARD "union.lower=/dev/vda union.upper=LABEL=data"

static unsigned lines(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void boot_with(struct config *c, const char *cmdline)
{
	config_boot(c, BOARD, cmdline, NULL, NULL);
}

#define ALL_PEERS "boot=live persistence persistence-label=STICK toram persistent " \
	"root=live:CDLABEL=Fedora rd.live.image rd.live.ram"

static void each_is_said_and_none_acts_by_default(void)
{
	static struct config c;

	boot_with(&c, ALL_PEERS);
	CHECK_INT(c.npeer, 8);
	CHECK_INT(lines(c.peer_said), 8);
	CHECK(strstr(c.peer_said, "boot=live (live-boot) means union.lower=auto here; acted on with union.compat=live-boot\n"));
	CHECK(strstr(c.peer_said, "root=live:CDLABEL=Fedora (dracut) means union.lower=LABEL=Fedora:/LiveOS/squashfs.img here; acted on with union.compat=dracut\n"));
	CHECK(strstr(c.peer_said, "persistent (casper) means union.upper=LABEL=casper-rw union.scan=removable here"));
	/* the board's layers and branch stay */
	CHECK_STR(c.lower, "/dev/vda");
	CHECK_STR(c.upper, "LABEL=data");
	CHECK_INT(c.toram, 0);
	CHECK_STR(c.root, "");
}

static void live_boot_compat_acts_on_its_family(void)
{
	static struct config c;

	boot_with(&c, "union.compat=live-boot boot=live persistence persistence-label=STICK toram "
		      "root=live:LABEL=x");
	CHECK_STR(c.lower, "auto");
	CHECK_STR(c.upper, "LABEL=STICK");
	CHECK_INT(c.upper_is_spec, 1);
	CHECK_INT(c.scan, SCAN_REMOVABLE);
	CHECK_INT(c.toram, 1);
	CHECK(strstr(c.peer_said, "persistence (live-boot) acts as union.upper=LABEL=STICK union.scan=removable (union.compat=live-boot)\n"));
	/* dracut's root=live: is not live-boot's: said, not acted on */
	CHECK(strstr(c.peer_said, "acted on with union.compat=dracut"));
	CHECK_STR(c.root, "");

	boot_with(&c, "persistent union.compat=live-boot");
	CHECK_STR(c.upper, "LABEL=casper-rw");
	boot_with(&c, "findiso=/isos/live.iso union.compat=live-boot");
	CHECK_STR(c.lower, "auto:/isos/live.iso:/live/filesystem.squashfs");
	CHECK_INT(c.nlower_spec, 1);
	CHECK_INT(c.lower_spec[0].npaths, 2);
}

static void dracut_compat_acts_on_its_family(void)
{
	static struct config c;

	boot_with(&c, "root=live:CDLABEL=Fedora-Live rd.live.image rd.live.ram union.compat=dracut boot=live");
	CHECK_STR(c.lower, "LABEL=Fedora-Live:/LiveOS/squashfs.img");
	CHECK_INT(c.toram, 1);
	CHECK(strstr(c.peer_said, "rd.live.image (dracut): it says no more than root=live: does\n"));
	CHECK(strstr(c.peer_said, "boot=live (live-boot) means union.lower=auto here; acted on with union.compat=live-boot\n"));
	boot_with(&c, "iso-scan/filename=/f.iso union.compat=dracut");
	CHECK_STR(c.lower, "auto:/f.iso:/LiveOS/squashfs.img");
	/* dracut's overlay is not ours: said, nothing taken */
	boot_with(&c, "rd.live.overlay=LABEL=x:/LiveOS/overlay union.compat=dracut");
	CHECK_STR(c.upper, "LABEL=data");
	CHECK_INT(lines(c.peer_said), 1);
}

/* before or after the peer's parameter, union.* and root= win */
static void an_explicit_union_parameter_wins(void)
{
	static struct config c;

	boot_with(&c, "union.lower=/dev/sdb boot=live union.compat=live-boot");
	CHECK_STR(c.lower, "/dev/sdb");
	CHECK(strstr(c.peer_said, "the command line's union.lower= wins\n"));
	boot_with(&c, "union.compat=live-boot persistence union.upper=tmpfs");
	CHECK_STR(c.upper, "tmpfs");
	CHECK_INT(c.scan, SCAN_ALL);
	boot_with(&c, "boot=live root=/dev/sdc union.compat=live-boot");
	CHECK_STR(c.root, "/dev/sdc");
	CHECK_STR(c.lower, "");
	CHECK(strstr(c.peer_said, "the command line's union.lower= wins\n"));
}

static void others_values_are_ours_or_nobodys(void)
{
	static struct config c;

	boot_with(&c, "boot=other root=/dev/sdd overlayroot=tmpfs");
	CHECK_INT(c.npeer, 1);
	CHECK_STR(c.root, "/dev/sdd");
	CHECK(strstr(c.peer_said, "overlayroot=tmpfs (overlayroot) means union.upper=tmpfs here; not acted on: write that\n"));
	CHECK_STR(c.upper, "LABEL=data");
}

static void hostile_values_are_one_line_and_never_act(void)
{
	static struct config c;
	char line[1200];

	/* a control byte, an empty value, a value longer than a SPEC */
	memset(line, 'a', sizeof(line));
	memcpy(line, "union.compat=live-boot findiso=\x01x persistence-label= findiso=", 62);
	line[sizeof(line) - 1] = '\0';
	boot_with(&c, line);
	CHECK_STR(c.lower, "/dev/vda");
	CHECK_INT(lines(c.peer_said), 2);
	CHECK(strstr(c.peer_said, "findiso (live-boot): ignored, its value is empty, too long or holds bytes a SPEC cannot\n"));
	/* every peer twice and more: one line each, none lost past the buffer */
	boot_with(&c, ALL_PEERS " " ALL_PEERS " iso-scan/filename=/i.iso findiso=/f.iso "
		      "rd.live.overlay=LABEL=o:/x overlayroot=tmpfs");
	CHECK_INT(c.npeer, CFG_PEERS);
	CHECK(c.peer_said[strlen(c.peer_said) - 1] == '\n');
}

UNIT_SUITE(peers,
	   { "each is said, and none acts without union.compat", each_is_said_and_none_acts_by_default },
	   { "union.compat=live-boot acts on live-boot's and casper's", live_boot_compat_acts_on_its_family },
	   { "union.compat=dracut acts on dracut's", dracut_compat_acts_on_its_family },
	   { "an explicit union.* parameter wins", an_explicit_union_parameter_wins },
	   { "other values are ours, or nobody's", others_values_are_ours_or_nobodys },
	   { "hostile values are one line and never act", hostile_values_are_one_line_and_never_act });
