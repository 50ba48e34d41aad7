/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure parts of scanner discovery: eSCL UUIDs and ids, ScannerCapabilities documents
 * (good, garbage, truncated, other roots), sane-airscan's configuration, SANE names. HTTP
 * is src/http's (test-http.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airscan-conf.h"
#include "escl-id.h"
#include "macro.h"
#include "sane-names.h"
#include "scanner-wire.h"
#include "tests.h"

static void test_uuid(void) {
        char *s;
        assert_se(escl_uuid_normalize("urn:uuid:4509A320-00A0-008F-00B6-002507510EEC", &s) == 0);
        assert_streq(s, "4509a320-00a0-008f-00b6-002507510eec");
        free(s);
        assert_se(escl_uuid_normalize("  URN:UUID:4509a320-00a0-008f-00b6-002507510eec \n", &s) == 0);
        assert_streq(s, "4509a320-00a0-008f-00b6-002507510eec");
        free(s);
        /* mDNS TXT UUIDs come without urn:uuid:; some without dashes. */
        assert_se(escl_uuid_normalize("4509A32000A0008F00B6002507510EEC", &s) == 0);
        assert_streq(s, "4509a320-00a0-008f-00b6-002507510eec");
        free(s);
        assert_se(escl_device_id("urn:uuid:4509A320-00A0-008F-00B6-002507510EEC", &s) == 0);
        assert_streq(s, "escl-4509a320-00a0-008f-00b6-002507510eec");
        free(s);
        assert_se(escl_uuid_normalize("", &s) == -EINVAL);
        assert_se(escl_uuid_normalize("urn:uuid:", &s) == -EINVAL);
        assert_se(escl_uuid_normalize("4509A320-00A0-008F-00B6-002507510EEG", &s) == -EINVAL);
        assert_se(escl_uuid_normalize("4509A320000A0-08F-00B6-002507510EEC", &s) == -EINVAL);
        assert_se(escl_uuid_normalize("4509a320-00a0-008f-00b6-002507510eec-", &s) == -EINVAL);
        assert_se(escl_uuid_normalize("../../etc/passwd", &s) == -EINVAL);
}

static const char caps_ok[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- a comment -->\n"
        "<scan:ScannerCapabilities xmlns:scan=\"http://schemas.hp.com/imaging/escl/2011/05/03\" "
        "xmlns:pwg=\"http://www.pwg.org/schemas/2010/12/sm\">\n"
        "  <pwg:Version>2.63</pwg:Version>\n  <pwg:MakeAndModel> HP Color LaserJet MFP </pwg:MakeAndModel>\n"
        "  <scan:UUID>urn:uuid:4509A320-00A0-008F-00B6-002507510EEC</scan:UUID>\n"
        "  <scan:Platen><scan:PlatenInputCaps><scan:MinWidth>16</scan:MinWidth><scan:Empty/>"
        "</scan:PlatenInputCaps></scan:Platen>\n"
        "</scan:ScannerCapabilities>\n";

static int parse(const char *xml, EsclCapabilities *c) {
        return escl_capabilities_parse(xml, strlen(xml), c);
}

static void test_capabilities(void) {
        EsclCapabilities c = {};
        assert_se(parse(caps_ok, &c) == 0);
        assert_streq(c.uuid, "4509a320-00a0-008f-00b6-002507510eec");
        assert_streq(c.make_and_model, "HP Color LaserJet MFP");
        escl_capabilities_done(&c);
        /* No namespace prefixes, no UUID: parsed, no uuid. */
        assert_se(parse("<ScannerCapabilities><Version>2.0</Version></ScannerCapabilities>", &c) == 0);
        assert_se(!c.uuid && !c.make_and_model);
        escl_capabilities_done(&c);

        /* Every truncation of a good document is refused, never read past. */
        for (size_t n = 0; n < strlen(caps_ok) - 2; n++) {
                char *cut = strndup(caps_ok, n);
                assert_se(cut);
                assert_se(escl_capabilities_parse(cut, n, &c) == -EBADMSG);
                free(cut);
        }
        static const char *const bad[] = {
                "",
                "garbage",
                "\x00\xff<<</broken",
                "<scan:ScannerCapabilities><scan:UUID>\x01\xff<<</broken",
                "<scan:ScannerStatus><pwg:State>Idle</pwg:State></scan:ScannerStatus>",
                "<scan:ScannerCapabilities><a></b></scan:ScannerCapabilities>",
                "<scan:ScannerCapabilities></scan:ScannerCapabilities><scan:ScannerCapabilities/>",
                "<scan:ScannerCapabilities><scan:UUID>not-a-uuid</scan:UUID></scan:ScannerCapabilities>",
                "text<scan:ScannerCapabilities/>",
                "<scan:ScannerCapabilities/>trailing",
                "<scan:ScannerCapabilities><scan:UUID>urn:uuid:4509A320-00A0-008F-00B6-002507510EEC",
                "<>",
                "<!-- unterminated",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_se(parse(bad[i], &c) == -EBADMSG);
        /* An embedded NUL inside text is refused too. */
        static const char nul[] = "<ScannerCapabilities><UUID>4509a320\0</UUID></ScannerCapabilities>";
        assert_se(escl_capabilities_parse(nul, sizeof nul - 1, &c) == -EBADMSG);
        /* Deep nesting is bounded. */
        char deep[64 * 4 + 64] = "<ScannerCapabilities>";
        for (int i = 0; i < 64; i++)
                strcat(deep, "<a>");
        assert_se(parse(deep, &c) == -EBADMSG);
}

static void test_airscan_conf(void) {
        static const char conf[] =
                "[options]\ndiscovery = enable\n; comment\n"
                "[devices]\n"
                "\"Office\" = http://127.0.0.1:8080/eSCL/, eSCL\n"
                "Kitchen = http://192.168.1.2/eSCL\n"
                "\"WSD one\" = http://192.168.1.3:5357/abc, WSD\n"
                "\"Off\" = disable\n"
                "# \"Commented\" = http://x/eSCL\n"
                "[blacklist]\nname = http://not-a-device/eSCL\n";
        AirscanDevice *d = NULL;
        size_t n = 0;
        assert_se(airscan_conf_parse(conf, &d, &n) == 0);
        assert_se(n == 2);
        assert_streq(d[0].name, "Office");
        assert_streq(d[0].url, "http://127.0.0.1:8080/eSCL");
        assert_streq(d[1].name, "Kitchen");
        assert_streq(d[1].url, "http://192.168.1.2/eSCL");
        airscan_devices_free(d, n);
}

static void test_sane_names(void) {
        char *s;
        const char *name;
        unsigned bus, dev;
        assert_se(sane_device_id("Photosmart_B109a-m", &s) == 0);
        assert_streq(s, "sane-Photosmart_B109a-m");
        free(s);
        assert_se(sane_model_name("Photosmart_B109a-m__", &s) == 0);
        assert_streq(s, "Photosmart B109a-m");
        free(s);
        assert_se(sane_vendor_is_test("Noname") && !sane_vendor_is_test("Canon"));
        assert_se(sane_name_is_airscan_escl("airscan:e12:Office Printer", &name));
        assert_streq(name, "Office Printer");
        assert_se(!sane_name_is_airscan_escl("airscan:w0:Office", &name));
        assert_se(!sane_name_is_airscan_escl("airscan:e:Office", &name));
        assert_se(!sane_name_is_airscan_escl("test:0", &name));
        assert_se(sane_usb_address("plustek:libusb:004:002", &bus, &dev) && bus == 4 && dev == 2);
        assert_se(sane_usb_address("epson2:libusb:001:127", &bus, &dev) && bus == 1 && dev == 127);
        assert_se(!sane_usb_address("plustek:libusb:004:002x", &bus, &dev));
        assert_se(!sane_usb_address("plustek:libusb:004", &bus, &dev));
        assert_se(!sane_usb_address("plustek:libusb:0004:002", &bus, &dev));
        assert_se(!sane_usb_address("test:0", &bus, &dev));
        assert_se(!sane_usb_address("pixma:04A91234_ABC", &bus, &dev));
}

static void test_wire(void) {
        ScannerRecord r;
        char l1[] = "sane\ttest:0\tNoname\tfrontend-tester\tvirtual device";
        assert_se(scanner_wire_parse_line(l1, &r) == 0);
        assert_se(r.kind == SCANNER_RECORD_SANE);
        assert_streq(r.field[0], "test:0");
        assert_streq(r.field[3], "virtual device");
        char l2[] = "escl-error\tairscan:e0:X\t\tcannot connect";
        assert_se(scanner_wire_parse_line(l2, &r) == 0);
        assert_se(r.kind == SCANNER_RECORD_ESCL_ERROR);
        assert_streq(r.field[1], "");
        char l3[] = "end";
        assert_se(scanner_wire_parse_line(l3, &r) == 0 && r.kind == SCANNER_RECORD_END);
        char b1[] = "end\textra", b2[] = "sane\ta\tb\tc", b3[] = "sane\ta\tb\tc\td\te", b4[] = "nonsense",
             b5[] = "sane\ta\t\xff\tc\td", b6[] = "", b7[] = "escl\ta\tb\x01\tc\td";
        char *bad[] = { b1, b2, b3, b4, b5, b6, b7 };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_se(scanner_wire_parse_line(bad[i], &r) == -EBADMSG);
}

/* A field as the helper writes it: a scanner's MakeAndModel in Latin-1, with a tab, a cut
 * sequence and an overlong form becomes a field the reader takes (docs/scanners.md). */
static void test_wire_field(void) {
        char out[SCANNER_FIELD_OUT_MAX], line[SCANNER_FIELD_OUT_MAX + 64];
        ScannerRecord r;
        scanner_wire_field("Caf\xe9\tScan \xc3\xa9\xe2\x82 \xc0\xaf", out);
        assert_streq(out, "Caf\xef\xbf\xbd Scan \xc3\xa9\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
        snprintf(line, sizeof line, "escl\tairscan:e0:X\turn:uuid:1\thttp://h/eSCL\t%s", out);
        assert_se(scanner_wire_parse_line(line, &r) == 0);
        scanner_wire_field(NULL, out);
        assert_streq(out, "");
        /* The longest field, all bad bytes: cut at SCANNER_FIELD_MAX, three bytes each. */
        char big[SCANNER_FIELD_MAX + 2];
        memset(big, 0xff, sizeof big - 1);
        big[sizeof big - 1] = 0;
        scanner_wire_field(big, out);
        assert_se(strlen(out) == 3 * SCANNER_FIELD_MAX);
}

/* The daemon's request on the helper's socket: what one writes the other reads, and
 * nothing else passes. */
static void test_request(void) {
        char buf[SCANNER_REQUEST_MAX];
        unsigned http_ms, total_ms;
        assert_se(scanner_request_format(buf, 5000, 60000) == 0);
        assert_streq(buf, "list\t5000\t60000\n");
        buf[strlen(buf) - 1] = 0;
        assert_se(scanner_request_parse(buf, &http_ms, &total_ms) == 0);
        assert_se(http_ms == 5000 && total_ms == 60000);
        assert_se(scanner_request_format(buf, 1, SCANNER_TIMEOUT_MS_MAX) == 0);
        assert_se(scanner_request_format(buf, 0, 1) == -EINVAL);
        assert_se(scanner_request_format(buf, 1, SCANNER_TIMEOUT_MS_MAX + 1) == -EINVAL);
        const char *bad[] = { "", "list", "list\t", "list\t5\t", "list\t\t5", "list\t5\t6\t7", "list\t0\t5",
                              "list\t5\t3600001", "list\t-5\t6", "list\t+5\t6", "list\t5 \t6", "list 5 6",
                              "LIST\t5\t6", "list\t99999999999999999999\t6", "list\t5\t6\n" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_se(scanner_request_parse(bad[i], &http_ms, &total_ms) == -EBADMSG);
}

int main(void) {
        test_wire();
        test_wire_field();
        test_request();
        test_uuid();
        test_capabilities();
        test_airscan_conf();
        test_sane_names();
        return 0;
}
