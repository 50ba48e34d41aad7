# SPDX-License-Identifier: GPL-2.0-or-later
"""What test-cups.py and test-cups-queues.py share beside cups_env.py: the PPD of a small
colour printer queue (lpadmin -P), and their main(), which skips where cupsd cannot run."""

import os
import shutil
import sys

import compat

PPD_HEAD = """*PPD-Adobe: "4.3"
*FormatVersion: "4.3"
*FileVersion: "1.0"
*LanguageVersion: English
*LanguageEncoding: ISOLatin1
*PCFileName: "TINCT.PPD"
*Manufacturer: "Tinct"
*Product: "({model})"
*ModelName: "{model}"
*ShortNickName: "{model}"
*NickName: "{model}"
*PSVersion: "(3010.000) 0"
*LanguageLevel: "3"
*ColorDevice: True
*DefaultColorSpace: RGB
*FileSystem: False
*Throughput: "1"
*LandscapeOrientation: Plus90
*TTRasterizer: Type42
*cupsVersion: 2.4
*cupsFilter: "application/vnd.cups-raster 0 -"
"""
PPD_TAIL = """*OpenUI *PageSize: PickOne
*DefaultPageSize: A4
*PageSize A4/A4: "<</PageSize[595 842]>>setpagedevice"
*CloseUI: *PageSize
*OpenUI *PageRegion: PickOne
*DefaultPageRegion: A4
*PageRegion A4/A4: "<</PageSize[595 842]>>setpagedevice"
*CloseUI: *PageRegion
*DefaultImageableArea: A4
*ImageableArea A4/A4: "0 0 595 842"
*DefaultPaperDimension: A4
*PaperDimension A4/A4: "595 842"
"""


def ppd(model, profiles=()):
    """An A4 raster queue's PPD; profiles: (qualifier/text, file) as cupsICCProfile lines."""
    return (PPD_HEAD.format(model=model) +
            "".join('*cupsICCProfile %s: "%s"\n' % p for p in profiles) + PPD_TAIL)


def main():
    """compat.main(), or exit 77 where cupsd cannot run: not installed, or not root (cupsd
    needs root for its own user switch)."""
    if not shutil.which("cupsd") or not shutil.which("lpadmin"):
        print("cupsd/lpadmin not installed (Debian's cups-daemon, cups-client): skipping")
        sys.exit(77)
    if os.geteuid() != 0:
        print("cupsd needs root (it switches to its own user for filters): skipping")
        sys.exit(77)
    compat.main()
