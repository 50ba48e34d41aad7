# SPDX-License-Identifier: GPL-2.0-or-later
"""IPP encoding (RFC 8010) for the tests' own printers on 127.0.0.1 (test-cups-trust.py,
test-printer-urls.py): the attributes of a Get-Printer-Attributes answer, and the answer.
Not a parser: the printers read only the request id of what they are asked."""

import struct

TAG = {"operation": 0x01, "printer": 0x04, "end": 0x03, "keyword": 0x44, "uri": 0x45, "charset": 0x47,
       "language": 0x48, "name": 0x42, "text": 0x41, "begin": 0x34, "end-collection": 0x37, "member": 0x4a}


def attr(tag, name, value):
    """One attribute value (RFC 8010 §3.1.4): tag, name, value, each length-prefixed; an
    empty name is one more value of the attribute before it."""
    tag = TAG[tag] if isinstance(tag, str) else tag
    name, value = name.encode(), value if isinstance(value, bytes) else value.encode()
    return struct.pack(">BH", tag, len(name)) + name + struct.pack(">H", len(value)) + value


def icc_profiles(entries):
    """printer-icc-profiles (PWG 5100.13): a 1setOf collection of profile-name, profile-url
    (RFC 8010 §3.1.6), one per (name, url)."""
    out = b""
    for i, (name, url) in enumerate(entries):
        out += attr("begin", "printer-icc-profiles" if i == 0 else "", b"")
        out += attr("member", "", "profile-name") + attr("name", "", name)
        out += attr("member", "", "profile-url") + attr("uri", "", url)
        out += attr("end-collection", "", b"")
    return out


def printer_answer(request, printer_attrs):
    """A successful Get-Printer-Attributes answer to the request (its bytes: the request id
    is echoed) carrying printer_attrs (encoded attributes)."""
    request_id = request[4:8] if len(request) >= 8 else b"\0\0\0\1"
    return (b"\x02\x00\x00\x00" + request_id + bytes([TAG["operation"]]) +
            attr("charset", "attributes-charset", "utf-8") + attr("language", "attributes-natural-language", "en") +
            bytes([TAG["printer"]]) + printer_attrs + bytes([TAG["end"]]))
