#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes the small seed corpora of fuzz/corpus/<target>/ (the files are checked in; rerun
# after changing this script). Seeds are hand-made: a few valid inputs of each format and a
# few near misses, so the fuzzer starts past the first checks.
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    os.makedirs(os.path.join(here, target), exist_ok=True)
    with open(os.path.join(here, target, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- EDID 1.4 base blocks ---
def descriptor_text(tag, text):
    body = text.encode('latin-1')[:13]
    if len(body) < 13:
        body += b'\n' + b' ' * (12 - len(body))
    return bytes([0, 0, 0, tag, 0]) + body


DTD_1080P = bytes.fromhex('023a801871382d40582c45000f282100001e')


def edid(pnp='DEL', product=0x4321, serial=12345, gamma=2.2, xy=None, name='U2713H',
         serial_text='ABC123', extensions=b''):
    xy = xy or [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06), (0.3127, 0.3290)]
    b = bytearray(b'\x00\xff\xff\xff\xff\xff\xff\x00')
    m = (ord(pnp[0]) - 64) << 10 | (ord(pnp[1]) - 64) << 5 | (ord(pnp[2]) - 64)
    b += struct.pack('>H', m) + struct.pack('<HI', product, serial)
    b += bytes([10, 2013 - 1990, 1, 4, 0xa5, 60, 34])
    b.append(0xff if gamma is None else round(gamma * 100) - 100)
    b.append(0x3a)
    v = [round(c * 1024) & 0x3ff for p in xy for c in p]
    b.append((v[0] & 3) << 6 | (v[1] & 3) << 4 | (v[2] & 3) << 2 | (v[3] & 3))
    b.append((v[4] & 3) << 6 | (v[5] & 3) << 4 | (v[6] & 3) << 2 | (v[7] & 3))
    b += bytes(c >> 2 for c in v)
    b += bytes([0x21, 0x08, 0x00]) + b'\x01\x01' * 8
    b += DTD_1080P
    b += descriptor_text(0xfc, name) if name is not None else descriptor_text(0x10, '')
    b += descriptor_text(0xff, serial_text) if serial_text is not None else descriptor_text(0x10, '')
    b += descriptor_text(0x10, '')
    b.append(len(extensions) // 128)
    b.append((-sum(b)) & 0xff)
    return bytes(b) + extensions


def cta_block():
    # CTA-861 extension: a colorimetry data block, an HDR static metadata block, no DTDs.
    blocks = bytes([0xe3, 0x05, 0x03, 0x01]) + bytes([0xe6, 0x06, 0x05, 0x01, 0x60, 0x60, 0x28])
    b = bytearray([0x02, 0x03, 4 + len(blocks), 0x00]) + blocks
    b += bytes(127 - len(b))
    b.append((-sum(b)) & 0xff)
    return bytes(b)


write('edid-icc', 'srgb-dell.bin', edid())
write('edid-icc', 'gamma-in-extension.bin', edid(gamma=None, name='Wide', serial_text=None))
write('edid-icc', 'no-text.bin', edid(pnp='AAA', serial=0, name=None, serial_text=None))
write('edid-icc', 'latin1-name.bin', edid(pnp='SAM', name='\xc9cran 24', serial_text='\xff\xfe'))
write('edid-icc', 'zero-primaries.bin', edid(xy=[(0, 0)] * 4))
write('edid-icc', 'wide-gamut-cta.bin',
      edid(pnp='HWP', gamma=2.4, xy=[(0.68, 0.32), (0.265, 0.69), (0.15, 0.06), (0.3127, 0.329)],
           extensions=cta_block()))


# --- D-Bus messages: CreateProfileWithFd as libcolord sends it ---
class Msg:
    def __init__(self, be):
        self.be, self.b = be, bytearray()

    def pad(self, a):
        while len(self.b) % a:
            self.b.append(0)

    def u32(self, v):
        self.pad(4)
        self.b += struct.pack('>I' if self.be else '<I', v & 0xffffffff)

    def string(self, s):
        s = s.encode()
        self.u32(len(s))
        self.b += s + b'\0'

    def sig(self, s):
        self.b += bytes([len(s)]) + s.encode() + b'\0'


def create_profile_with_fd(be=False, handle=0xffffffff, props=(('Qualifier', 'RGB.Plain.300dpi'),),
                           signature='ssha{ss}'):
    body = Msg(be)
    body.string('icc-fuzz')
    body.string('temp')
    body.u32(handle)
    body.u32(0)
    length_at = len(body.b) - 4
    body.pad(8)
    start = len(body.b)
    for k, v in props:
        body.pad(8)
        body.string(k)
        body.string(v)
    struct.pack_into('>I' if be else '<I', body.b, length_at, len(body.b) - start)

    m = Msg(be)
    m.b += bytes([ord('B' if be else 'l'), 1, 0, 1])
    m.u32(len(body.b))
    m.u32(7)  # serial
    m.u32(0)  # header fields length, patched below
    start = len(m.b)
    for code, t, value in ((1, 'o', '/org/freedesktop/ColorManager'), (2, 's', 'org.freedesktop.ColorManager'),
                           (3, 's', 'CreateProfileWithFd'), (8, 'g', signature), (9, 'u', 1)):
        m.pad(8)
        m.b.append(code)
        m.sig(t)
        if t == 'g':
            m.sig(value)
        elif t == 'u':
            m.u32(value)
        else:
            m.string(value)
    struct.pack_into('>I' if be else '<I', m.b, 12, len(m.b) - start)
    m.pad(8)
    return bytes(m.b + body.b)


write('dbus-wire', 'create-le.bin', create_profile_with_fd())
write('dbus-wire', 'create-be.bin', create_profile_with_fd(be=True, handle=0))
write('dbus-wire', 'create-many-props.bin',
      create_profile_with_fd(props=(('Filename', '/tmp/x.icc'), ('Format', 'ColorSpace..'), ('Title', 'Fuzz'))))
write('dbus-wire', 'create-no-props.bin', create_profile_with_fd(props=()))
write('dbus-wire', 'other-signature.bin', create_profile_with_fd(signature='su'))
write('dbus-wire', 'truncated.bin', create_profile_with_fd()[:60])

# --- JSON: the store's export format and the corners of RFC 8259 ---
write('json', 'export.json', '''{
  "format": "tinct-store",
  "version": 4,
  "devices": [
    {
      "id": "xrandr-Dell-U2713H-ABC123",
      "scope": "disk",
      "owner": 1000,
      "properties": { "Vendor": "Dell", "Model": "U2713H", "Colorspace": "rgb" },
      "profiles": [ "icc-0123456789abcdef0123456789abcdef" ]
    }
  ],
  "profiles": [],
  "enabled": true,
  "comment": null
}
''')
write('json', 'escapes.json', r'["\u00e9\ud83d\ude00\n\t\"\\\/", "\u20ac", "caf\u00e9", ""]')
write('json', 'numbers.json', '[0, -1, 12.5e-3, 1E+2, 9223372036854775807, -9223372036854775808, 9223372036854775808]')
write('json', 'nested.json', '{"a":' * 31 + '[]' + '}' * 31)
write('json', 'utf8.json', '{"na\u00efve": "\u65e5\u672c", "k": [true, false, null]}\n')
write('json', 'trailing-comma.json', '[1, 2, ]')
write('json', 'duplicate-key.json', '{"a": 1, "a": 2}')

# --- qualifiers: "query\0profile" (no NUL: a profile without a qualifier) ---
for name, q, p in (('exact', 'RGB.Plain.300dpi', 'RGB.Plain.300dpi'), ('star', '*', 'RGB.Glossy.600dpi'),
                   ('star-parts', 'RGB.*.*', 'RGB.Glossy.600dpi'), ('profile-star', 'CMYK.Plain.300dpi', 'CMYK.*.*'),
                   ('extra-dots', 'a.b.c.d', 'a.b.c.d'), ('short', 'RGB', 'RGB.Plain'),
                   ('mismatch', 'RGB.Plain.300dpi', 'RGB.Plain.600dpi'), ('empty-parts', '..', '..')):
    write('qualifier', name, (q + '\0' + p).encode())
write('qualifier', 'no-profile-qualifier', b'RGB.Plain.300dpi')

# --- names: ids, vendors, models, serials, titles, kinds ---
for i, s in enumerate(('xrandr-Dell Inc.-DELL U2713H-ABC123', 'cups-HP_LaserJet_4000',
                       'Hewlett-Packard', 'Samsung Electric Company Ltd. ', 'Acme Corporation Inc',
                       'DELL U2713H Monitor  Screen ', 'Photo Printer', 'usb://HP/LaserJet?serial=CN123',
                       'Default, sRGB IEC61966-2.1 (2012).ICC', 'Adobe_RGB_1998.icm', 'display', 'rgb',
                       'named-color', '\u00c9cran t\u00e9l\u00e9 \u65e5\u672c', 'a/b.c-d e')):
    write('names', '%02d' % i, s)

# --- CGATS measurement files (.ti3 as Argyll's dispread and fakeread write them) ---
TI3_HEAD = ('CTI3   \n\nDESCRIPTOR "Argyll Calibration Target chart information 3"\n'
            'ORIGINATOR "Argyll dispread"\nCREATED "Fri Dec  4 20:48:21 2026"\n'
            'KEYWORD "DEVICE_CLASS"\nDEVICE_CLASS "DISPLAY"\n'
            'KEYWORD "LUMINANCE_XYZ_CDM2"\nLUMINANCE_XYZ_CDM2 "114.5 120.0 130.1"\n'
            'KEYWORD "NORMALIZED_TO_Y_100"\nNORMALIZED_TO_Y_100 "YES"\nCOLOR_REP "RGB_XYZ"\n\n'
            'NUMBER_OF_FIELDS 7\nBEGIN_DATA_FORMAT\nSAMPLE_ID RGB_R RGB_G RGB_B XYZ_X XYZ_Y XYZ_Z \n'
            'END_DATA_FORMAT\n\n')
ROWS = ['1 100 100 100 95.1065 100 108.844', '2 0.00000 0.00000 0.00000 0.132 0.130 0.277',
        '3 100 0 0 41.2 21.3 1.93', '4 0 100 0 35.8 71.5 11.9', '5 0 0 100 18.0 7.22 95.1',
        '6 50 25.5 75 15.2 10.1 40.3']
CAL = ('\nCAL    \n\nDESCRIPTOR "Argyll Device Calibration State"\nCOLOR_REP "RGB"\n'
       'NUMBER_OF_FIELDS 4\nBEGIN_DATA_FORMAT\nRGB_I RGB_R RGB_G RGB_B\nEND_DATA_FORMAT\n'
       'NUMBER_OF_SETS 2\nBEGIN_DATA\n0 0 0 0\n1 1 1 1\nEND_DATA\n')


def ti3(rows, head=TI3_HEAD, tail=''):
    return head + 'NUMBER_OF_SETS %d\nBEGIN_DATA\n' % len(rows) + '\n'.join(rows) + '\nEND_DATA\n' + tail


write('cgats', 'display.ti3', ti3(ROWS))
write('cgats', 'with-cal.ti3', ti3(ROWS, tail=CAL))
write('cgats', 'absolute.ti3', ti3(ROWS, head=TI3_HEAD.replace('"YES"', '"NO"')))
write('cgats', 'wrong-count.ti3', ti3(ROWS).replace('NUMBER_OF_SETS 6', 'NUMBER_OF_SETS 7'))
write('cgats', 'not-a-number.ti3', ti3(ROWS[:-1] + ['6 50 x 75 15.2 10.1 40.3']))
write('cgats', 'missing-field.ti3', ti3(ROWS).replace('XYZ_Z', 'XYZ_Q'))
write('cgats', 'ti1.ti1', 'CTI1\n\nCOLOR_REP "RGB"\nNUMBER_OF_FIELDS 4\nBEGIN_DATA_FORMAT\n'
      'SAMPLE_ID RGB_R RGB_G RGB_B\nEND_DATA_FORMAT\nNUMBER_OF_SETS 2\nBEGIN_DATA\n'
      '1 100 100 100\n"A2" 0 0 0 # quoted id\nEND_DATA\n')
# found by fuzz-cgats: a keyword without a value (its empty value must lie in the parser's copy)
write('cgats', 'keyword-without-value.ti3', ti3(ROWS, head=TI3_HEAD.replace('DEVICE_CLASS "DISPLAY"\n',
                                                                             'DEVICE_CLASS "DISPLAY"\nKEYWORD\nEMPTY\n')))
# found by fuzz-cgats: a last line without a newline whose token ends in a blank (it looped)
write('cgats', 'no-final-newline', 'DESLI ')
write('cgats', 'no-final-newline.ti3', ti3(ROWS).rstrip('\n') + ' ')

# --- HTTP (src/http): "\x01" + a URL, "\x00" + a response ---
for name, url in [('printer', 'ipp://printer.local:631/ipp/print'), ('profile', 'http://127.0.0.1:8080/a%20b.icc?x=1'),
                  ('ipv6', 'https://[fe80::1]:8443/eSCL/'), ('encode', 'http://h/\xe9"<>{}|\\^`[]%zz#frag'),
                  ('injection', 'http://127.0.0.1/a.icc HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET /second.icc'),
                  ('userinfo', 'http://user@h/')]:
    write('http', 'url-' + name, b'\x01' + url.encode())
for name, resp in [('length', 'HTTP/1.1 200 OK\r\nContent-Type: application/vnd.iccprofile\r\nContent-Length: 5\r\n\r\nhello'),
                   ('chunked', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n'),
                   ('close', 'HTTP/1.0 200 OK\r\n\r\nuntil the end'),
                   ('redirect', 'HTTP/1.1 302 Found\r\nLocation: http://192.0.2.1/x\r\nContent-Length: 0\r\n\r\n'),
                   ('both', 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
                   ('gzip', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n'),
                   ('no-content', 'HTTP/1.1 204 No Content\r\n\r\n')]:
    write('http', 'response-' + name, b'\x00' + resp.encode())
