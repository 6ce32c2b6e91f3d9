// SPDX-License-Identifier: MIT
/* Drivers chosen by modalias: real modules.alias lines versus the
 * modaliases QEMU's controllers show in sysfs, CPU-feature modules, the
 * uevent's MODALIAS=, and the matcher versus the C library's fnmatch. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "kmod/modalias.h"
#include "lib/lines.h"
#include "unit.h"

/* As PID 1 has it: a table as long as the file has lines, or a shorter
 * one where a test says so. */
static struct modalias_entry entries[5000];
static struct modalias ma = { .e = entries, .cap = ARRAY_SIZE(entries) };

static const char alias_text[] =
	"# Aliases extracted from modules themselves.\n"
	"alias fs-ext4 ext4\n"
	"alias pci:v00008086d00007010sv*sd*bc*sc*i* ata_piix\n"
	"alias pci:v*d*sv*sd*bc01sc06i01* ahci\n"
	"alias pci:v*d*sv*sd*bc01sc08i02* nvme\n"
	"alias virtio:d00000002v* virtio_blk\n"
	"alias scsi:t-0x05* sr_mod\n"
	"alias usb:v*p*d*dc*dsc*dp*ic08isc06ip50in* usb_storage\n"
	"alias usb:v*p*d*dc*dsc*dp*ic08isc06ip62in* uas\n"
	"alias cpu:type:x86,ven*fam*mod*:feature:*0081* crct10dif_pclmul\n"
	"alias\tscsi:t-0x00*\tsd_mod"; /* tabs, and no newline at the end */

/* The module the first matching alias names, or "" when none matches. */
static const char *first(const char *modalias)
{
	int i = modalias_next(&ma, modalias, 0);

	return i < 0 ? "" : ma.e[i].module;
}

static void parse(void)
{
	static char text[sizeof(alias_text)];

	memcpy(text, alias_text, sizeof(text));
	CHECK_INT(modalias_parse(&ma, text), 0);
}

static void qemus_controllers_find_their_drivers(void)
{
	parse();
	CHECK_INT(ma.n, 10);
	CHECK_STR(first("pci:v00008086d00007010sv00000000sd00000000bc01sc01i80"), "ata_piix");
	CHECK_STR(first("pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01"), "ahci");
	CHECK_STR(first("pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02"), "nvme");
	CHECK_STR(first("virtio:d00000002v00001AF4"), "virtio_blk");
	CHECK_STR(first("scsi:t-0x05"), "sr_mod");
	CHECK_STR(first("scsi:t-0x00"), "sd_mod");
	CHECK_STR(first("usb:v46F4p0001d0000dc00dsc00dp00ic08isc06ip50in00"), "usb_storage");
	/* a VGA card, a virtio network card, the symbolic alias: nothing */
	CHECK_STR(first("pci:v00001234d00001111sv00001AF4sd00001100bc03sc00i00"), "");
	CHECK_STR(first("virtio:d00000001v00001AF4"), "");
	CHECK_STR(first("fs-ext"), "");
}

static void every_matching_alias_is_found_in_turn(void)
{
	const char *uas_stick = "usb:v46F4p0001d0000dc00dsc00dp00ic08isc06ip62in00";
	int i;

	parse();
	i = modalias_next(&ma, uas_stick, 0);
	CHECK(i >= 0 && strcmp(ma.e[i].module, "uas") == 0);
	CHECK_INT(modalias_next(&ma, uas_stick, (unsigned)i + 1), -1);
}

static void a_cpu_feature_module_loads_only_with_its_feature(void)
{
	parse();
	CHECK_INT(modalias_cpu_lacks(&ma, "crct10dif-pclmul", 16,
				     "cpu:type:x86,ven0002fam000Fmod006B:feature:,0000,0079,0081,0083"), 0);
	CHECK_INT(modalias_cpu_lacks(&ma, "crct10dif_pclmul", 16,
				     "cpu:type:x86,ven0000fam0006mod0006:feature:,0000,0079,0083"), 1);
	CHECK_INT(modalias_cpu_lacks(&ma, "ahci", 4, "cpu:type:x86,ven0000:feature:,0000"), 0);
	CHECK_INT(modalias_cpu_lacks(&ma, "crct10dif_pclmul", 16, ""), 1);
}

/* Storage plus two NIC families is 3099 aliases: a table of the old fixed
 * 3072 keeps the first and counts the 27 it cannot hold, for the boot to
 * say so. */
static void a_full_table_counts_what_it_drops(void)
{
	static char text[3099 * 24 + 1];
	size_t off = 0;
	int rc;

	for (unsigned i = 0; i < 3099; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "alias a:%u m%u\n", i, i);
	CHECK_INT(lines_count(text), 3099);
	ma.cap = 3072;
	rc = modalias_parse(&ma, text);
	ma.cap = ARRAY_SIZE(entries);
	CHECK_INT(rc, -E2BIG);
	CHECK_INT(ma.n, 3072);
	CHECK_INT(ma.dropped, 27);
	CHECK_STR(first("a:3071"), "m3071");
	CHECK_STR(first("a:3072"), "");
	/* the next parse starts over */
	parse();
	CHECK_INT(ma.n, 10);
	CHECK_INT(ma.dropped, 0);
}

/* Storage and two NIC families carry thousands of aliases: the last line
 * of a 5000-alias modules.alias still finds its driver. */
static void the_last_of_5000_aliases_is_matched(void)
{
	static char text[5000 * 56];
	size_t off = 0;

	for (unsigned i = 0; i < 5000; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"alias pci:v00008086d%08Xsv*sd*bc*sc*i* nic%u\n", i, i % 40);
	CHECK_INT(lines_count(text), 5000);
	CHECK_INT(modalias_parse(&ma, text), 0);
	CHECK_INT(ma.n, 5000);
	CHECK_STR(first("pci:v00008086d00001387sv00001AF4sd00001100bc02sc00i00"), "nic39");
}

static void a_uevent_gives_its_modalias_only_when_added(void)
{
	static const char add[] = "add@/devices/pci0000:00/0000:00:04.0\0ACTION=add\0"
				  "DEVPATH=/devices/pci0000:00/0000:00:04.0\0SUBSYSTEM=pci\0"
				  "MODALIAS=pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02\0SEQNUM=9";
	static const char bind[] = "bind@/devices/x\0ACTION=bind\0DEVPATH=/devices/x\0MODALIAS=pci:v1\0";
	static const char none[] = "add@/devices/y\0ACTION=add\0DEVPATH=/devices/y\0";
	const char *dev;

	CHECK_STR(modalias_of_uevent(add, sizeof(add) - 1, &dev),
		  "pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02");
	CHECK_STR(dev, "/devices/pci0000:00/0000:00:04.0");
	CHECK(modalias_of_uevent(bind, sizeof(bind) - 1, &dev) == NULL);
	CHECK(modalias_of_uevent(none, sizeof(none) - 1, &dev) == NULL);
	/* a MODALIAS= cut by the end of the message is not taken */
	CHECK(modalias_of_uevent(add, 160, &dev) == NULL);
}

static void random_patterns_agree_with_fnmatch(void)
{
	static const char alpha[] = "ab:*?[]!-";
	char pat[14], name[12], text[40];

	srand(14);
	for (int round = 0; round < 100000; round++) {
		size_t pl = (size_t)(rand() % 13), nl = (size_t)(rand() % 11);

		for (size_t i = 0; i < pl; i++)
			pat[i] = alpha[rand() % (int)(sizeof(alpha) - 1)];
		pat[pl] = '\0';
		for (size_t i = 0; i < nl; i++)
			name[i] = "ab:-]"[rand() % 5];
		name[nl] = '\0';
		/* an unclosed class, or a ']' first in one that starts a range:
		 * libcs differ there, and no kernel alias has either */
		if ((strchr(pat, '[') && !strchr(pat, ']')) || strstr(pat, "[]") || strstr(pat, "[!]"))
			continue;
		if (strcmp(pat, "") == 0 || strchr(pat, ' '))
			continue;
		strcpy(text, "alias ");
		strcat(text, pat);
		strcat(text, " m\n");
		CHECK_INT(modalias_parse(&ma, text), 0);
		if ((modalias_next(&ma, name, 0) == 0) != (fnmatch(pat, name, 0) == 0)) {
			unit_failf(__FILE__, __LINE__, "\"%s\" vs \"%s\": ours %d", pat, name,
				   modalias_next(&ma, name, 0));
			return;
		}
	}
}

UNIT_SUITE(modalias,
	   { "QEMU's controllers find their drivers", qemus_controllers_find_their_drivers },
	   { "every matching alias is found in turn", every_matching_alias_is_found_in_turn },
	   { "a CPU-feature module loads only with its feature",
	     a_cpu_feature_module_loads_only_with_its_feature },
	   { "a full table counts what it drops", a_full_table_counts_what_it_drops },
	   { "the last of 5000 aliases is matched", the_last_of_5000_aliases_is_matched },
	   { "a uevent gives its modalias only when a device is added",
	     a_uevent_gives_its_modalias_only_when_added },
	   { "random patterns agree with fnmatch", random_patterns_agree_with_fnmatch });
