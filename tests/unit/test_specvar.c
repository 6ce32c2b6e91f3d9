// SPDX-License-Identifier: MIT
/* ${mac} and ${hostname} in an nbd: export name: the names the
 * configuration takes, the values a boot puts in, and each refusal in one
 * line. */
#include "conf/specvar.h"
#include "conf/spec.h"

#include <errno.h>
#include <string.h>

#include "unit.h"

static void a_client_gets_its_own_export_name(void)
{
	const struct specvar_vals v = { "52-54-00-12-34-56", "pc07" };
	char out[64], why[160];

	CHECK_INT(specvar_expand("10.0.2.100:10809/clients-${mac}", &v, out, sizeof(out), why, sizeof(why)), 0);
	CHECK_STR(out, "10.0.2.100:10809/clients-52-54-00-12-34-56");
	CHECK_INT(specvar_expand("1.2.3.4:1/${hostname}/${mac}", &v, out, sizeof(out), why, sizeof(why)), 0);
	CHECK_STR(out, "1.2.3.4:1/pc07/52-54-00-12-34-56");
	/* no variable: the text as it is; a '$' alone is itself */
	CHECK_INT(specvar_expand("1.2.3.4:1/a$b$", &v, out, sizeof(out), why, sizeof(why)), 0);
	CHECK_STR(out, "1.2.3.4:1/a$b$");
	CHECK_INT(specvar_expand("", &v, out, sizeof(out), why, sizeof(why)), 0);
	CHECK_STR(out, "");
}

static void unknown_names_are_refused_in_one_line(void)
{
	static const char *bad[] = { "x/${MAC}", "x/${}", "x/${mac", "x/${ip}", "x/${mac}${host}", "x/${a\nb}" };
	char why[160];

	CHECK_INT(specvar_check("x/clients-${mac}-${hostname}", why, sizeof(why)), 0);
	CHECK_INT(specvar_check("x/plain", why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CHECK_INT(specvar_check(bad[i], why, sizeof(why)), -EINVAL);
		CHECK(why[0] != '\0' && strchr(why, '\n') == NULL);
	}
	CHECK_INT(specvar_check("x/${ip}", why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "unknown ${ip} in the export name (want ${mac} or ${hostname})");
}

/* the configuration refuses what no boot could expand: the SPEC's parse */
static void an_nbd_spec_with_an_unknown_name_does_not_parse(void)
{
	struct spec s;
	char err[160];

	CHECK_INT(spec_parse("nbd:10.0.2.100:10809/clients-${mac}", &s, err, sizeof(err)), 0);
	CHECK_STR(s.value, "10.0.2.100:10809/clients-${mac}");
	CHECK_INT(spec_parse("nbd:10.0.2.100:10809/clients-${serial}", &s, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown ${serial} in the export name (want ${mac} or ${hostname})");
}

static void a_missing_or_odd_value_is_said(void)
{
	const struct specvar_vals none = { "52-54-00-12-34-56", "" }, odd = { NULL, "a/b" };
	char out[64], why[160];

	CHECK_INT(specvar_expand("x/${hostname}", &none, out, sizeof(out), why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "${hostname}: neither DHCP nor ip= gave a host name");
	CHECK_INT(specvar_expand("x/${hostname}", &odd, out, sizeof(out), why, sizeof(why)), -EINVAL);
	CHECK(strncmp(why, "${hostname}: the host name is no export name's", 46) == 0);
	CHECK_INT(specvar_expand("x/${mac}", &odd, out, sizeof(out), why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "${mac}: the NIC's address is not known");
	CHECK_INT(specvar_expand("0123456789/${mac}", &none, out, 20, why, sizeof(why)), -ENAMETOOLONG);
	CHECK_STR(why, "the export name expanded is over 19 bytes");
}

static void the_mac_is_read_as_sysfs_writes_it(void)
{
	char mac[SPECVAR_MAC_TEXT];

	CHECK_INT(specvar_mac("52:54:00:12:34:56\n", mac), 0);
	CHECK_STR(mac, "52-54-00-12-34-56");
	CHECK_INT(specvar_mac("52:54:00:AB:cd:EF", mac), 0);
	CHECK_STR(mac, "52-54-00-ab-cd-ef");
	CHECK_INT(specvar_mac("52:54:00:12:34", mac), -EINVAL);
	CHECK_INT(specvar_mac("52-54-00-12-34-56\n", mac), -EINVAL);
	CHECK_INT(specvar_mac("52:54:00:12:34:5g\n", mac), -EINVAL);
	CHECK_INT(specvar_mac("52:54:00:12:34:56:78\n", mac), -EINVAL);
	CHECK_INT(specvar_mac("", mac), -EINVAL);
}

UNIT_SUITE(specvar,
	   { "a client gets its own export name", a_client_gets_its_own_export_name },
	   { "unknown names are refused in one line", unknown_names_are_refused_in_one_line },
	   { "an nbd: SPEC with an unknown name does not parse", an_nbd_spec_with_an_unknown_name_does_not_parse },
	   { "a missing or odd value is said", a_missing_or_odd_value_is_said },
	   { "the MAC is read as sysfs writes it", the_mac_is_read_as_sysfs_writes_it });
