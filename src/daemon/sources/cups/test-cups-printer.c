/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for cups-printer.c (a queue's attributes, identity, URIs) and cups-qualifier.c
 * (IPP keywords → the generated PPD's names; a vendor profile's qualifier). */
#include <errno.h>
#include <stdlib.h>

#include "cups-printer.h"
#include "cups-qualifier.h"
#include "macro.h"
#include "tests.h"

static void check_identity(const char *uuid, const char *device_id, int expect_r, const char *expect) {
        char *s = NULL;
        assert_se(cups_identity(uuid, device_id, &s) == expect_r);
        if (expect)
                assert_streq(s, expect);
        free(s);
}

static void test_identity(void) {
        /* The uuid wins, lower case, without urn:uuid:. */
        check_identity("urn:uuid:6A1F8C3E-0000-4000-8000-00000000ABCD", "MFG:HP;MDL:X;SN:1;", 0,
                       "uuid:6a1f8c3e-0000-4000-8000-00000000abcd");
        check_identity("6a1f8c3e-0000-4000-8000-00000000abcd", NULL, 0, "uuid:6a1f8c3e-0000-4000-8000-00000000abcd");
        /* A malformed uuid falls back to the device id. */
        check_identity("urn:uuid:not-a-uuid", "MFG:HP;MDL:OfficeJet 250;SN:CN12345;", 0, "1284:HP|OfficeJet 250|CN12345");
        check_identity(NULL, "MANUFACTURER:Brother;COMMAND SET:PCL;MODEL:HL-L2350DW;SERIALNUMBER:E7;", 0,
                       "1284:Brother|HL-L2350DW|E7");
        /* Without a serial two printers of a model would share choices: no identity. */
        check_identity(NULL, "MFG:HP;MDL:OfficeJet 250;", -ENOENT, NULL);
        check_identity(NULL, NULL, -ENOENT, NULL);
        check_identity(NULL, "garbage without fields", -ENOENT, NULL);
        check_identity(NULL, "", -ENOENT, NULL);
}

static void test_uris(void) {
        char *s;
        assert_streq(s = cups_sanitize_uri("ipp://user:secret@printer.local:631/ipp/print"),
                     "ipp://user@printer.local:631/ipp/print");
        free(s);
        assert_streq(s = cups_sanitize_uri("ipp://printer.local/ipp/print"), "ipp://printer.local/ipp/print");
        free(s);
        assert_streq(s = cups_sanitize_uri("file:///dev/null"), "file:///dev/null");
        free(s);
        assert_streq(s = cups_sanitize_uri("socket://10.0.0.2:9100/a@b:c"), "socket://10.0.0.2:9100/a@b:c");
        free(s);
        assert_se(cups_uri_uuid("dnssd://HP%20OfficeJet._ipp._tcp.local/?uuid=6A1F8C3E-0000-4000-8000-00000000ABCD",
                                &s) == 0);
        assert_streq(s, "6a1f8c3e-0000-4000-8000-00000000abcd");
        free(s);
        assert_se(cups_uri_uuid("dnssd://x._ipp._tcp.local/?bidi&uuid=6a1f8c3e-0000-4000-8000-00000000abcd", &s) == 0);
        free(s);
        assert_se(cups_uri_uuid("dnssd://x._ipp._tcp.local/?uuid=short", &s) == -ENOENT);
        assert_se(cups_uri_uuid("ipp://x/?uuid=6a1f8c3e-0000-4000-8000-00000000abcd", &s) == -ENOENT);
        assert_streq(s = cups_device_id("Office"), "cups-Office");
        free(s);
        char *v, *m;
        assert_se(cups_vendor_model("HP OfficeJet 250", &v, &m) == 0);
        assert_streq(v, "HP");
        assert_streq(m, "HP OfficeJet 250");
        free(v);
        free(m);
        assert_se(cups_vendor_model("   ", &v, &m) == -ENOENT);
}

static void check_qualifier(const char *name, const char *colorspace, char *const *media, const char *expect) {
        char *q = cups_profile_qualifier(name, colorspace, media);
        assert_streq(q, expect);
        free(q);
}

static void test_qualifiers(void) {
        assert_streq(cups_ppd_color_model("color"), "RGB");
        assert_streq(cups_ppd_color_model("monochrome"), "Gray");
        assert_streq(cups_ppd_color_model("bi-level"), "FastGray");
        assert_streq(cups_ppd_color_model("adobe-rgb"), "AdobeRGB");
        assert_se(!cups_ppd_color_model("highlight"));
        assert_se(!cups_ppd_color_model(NULL));
        char *s;
        assert_streq(s = cups_ppd_media_type("photographic-glossy"), "PhotographicGlossy");
        free(s);
        assert_streq(s = cups_ppd_media_type("stationery"), "Stationery");
        free(s);
        assert_streq(s = cups_ppd_media_type("com.vendor-special"), "Com.vendorSpecial");
        free(s);
        assert_streq(s = cups_ppd_resolution(600, 600), "600dpi");
        free(s);
        assert_streq(s = cups_ppd_resolution(600, 1200), "600x1200dpi");
        free(s);

        char *media[] = { (char *) "stationery", (char *) "photographic-glossy", (char *) "com.acme-fine-art", NULL };
        check_qualifier("photographic-glossy", "rgb", media, "RGB.PhotographicGlossy.*");
        /* The longest keyword inside the name, between word boundaries. */
        check_qualifier("ACME photographic-glossy v2", "rgb", media, "RGB.PhotographicGlossy.*");
        check_qualifier("Plain stationery 1200dpi", "rgb", media, "RGB.Stationery.1200dpi");
        check_qualifier("com.acme-fine-art", "cmyk", media, "CMYK.Com.acmeFineArt.*");
        /* From PWG 5101.1's list when the printer did not say. */
        check_qualifier("photographic-matte", "rgb", NULL, "RGB.PhotographicMatte.*");
        check_qualifier("adobe-rgb photographic-glossy", "rgb", media, "AdobeRGB.PhotographicGlossy.*");
        check_qualifier("monochrome", "rgb", media, "Gray.*.*");
        check_qualifier("default", "rgb", media, "RGB.*.*");
        check_qualifier("default", "lab", media, "*.*.*");
        /* Not a word of its own: stationeryx is no stationery. */
        check_qualifier("stationeryx", "rgb", media, "RGB.*.*");
        check_qualifier("600x1200dpi", "rgb", media, "RGB.*.600x1200dpi");
}

static void test_printer_from_ipp(void) {
        /* A group with no printer-name is refused with a problem. */
        IppGroup empty = { .tag = IPP_TAG_PRINTER };
        CupsPrinter p;
        char *problem = NULL;
        assert_se(cups_printer_from_ipp(&empty, &p, &problem) == -EBADMSG);
        assert_se(problem);
        free(problem);
}

static void test_vendor_profile_ids(void) {
        char *id;
        /* md5("uuid:0d7f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b") starts 899b4cba9805, md5("queue:Photo")
         * 0d1fdf5d43a4 (python3's hashlib). */
        assert_streq(id = cups_vendor_profile_id("uuid:0d7f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b", "Photo", "stationery"),
                     "printer-899b4cba9805-stationery");
        assert_se(cups_vendor_profile_id_reserved(id));
        free(id);
        /* Without an identity, from the queue name: the same reserved form. */
        assert_streq(id = cups_vendor_profile_id(NULL, "Photo", "photographic-glossy"),
                     "printer-0d1fdf5d43a4-photographic-glossy");
        assert_se(cups_vendor_profile_id_reserved(id));
        free(id);
        assert_se(cups_vendor_profile_id_reserved("printer-0123456789ab-"));
        assert_se(!cups_vendor_profile_id_reserved("printer-0123456789AB-x")); /* md5_hex is lower case */
        assert_se(!cups_vendor_profile_id_reserved("printer-0123456789a-x"));
        assert_se(!cups_vendor_profile_id_reserved("printer-0123456789abc"));
        assert_se(!cups_vendor_profile_id_reserved("printer-0123456789ab"));
        assert_se(!cups_vendor_profile_id_reserved("Photo-RGB.."));  /* cupsd's own ids (colord §9.5) */
        assert_se(!cups_vendor_profile_id_reserved("icc-0123456789abcdef0123456789abcdef"));
        assert_se(!cups_vendor_profile_id_reserved(""));
}

int main(void) {
        test_identity();
        test_vendor_profile_ids();
        test_uris();
        test_qualifiers();
        test_printer_from_ipp();
        return 0;
}
