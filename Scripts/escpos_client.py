#!/usr/bin/env python3
"""python-escpos as a reference ESC/POS client, for the emulator's compatibility test and the benchmark.

  escpos_client.py sample HOST PORT PAYLOAD   print a ticket with styled text, a native QR and an image
  escpos_client.py bench HOST PORT N PAYLOAD  build and send the standard ticket N times; prints JSON
"""
import json
import sys
import time

from escpos.constants import QR_ECLEVEL_M
from escpos.printer import Dummy, Network
from PIL import Image, ImageDraw


def standard_ticket(p, payload):
    """The benchmark's standard ticket, the same content as KioskStation's TestTicket."""
    p.set(align="center", bold=True)
    p.text("CLup Market - Via Roma 12\n")
    p.set(align="center", bold=True, custom_size=True, width=4, height=4)
    p.text("A042\n")
    p.set(align="center", normal_textsize=True)
    p.qr(payload, ec=QR_ECLEVEL_M, size=6, native=True)
    p.text("3 people ahead - about 6 min\n")
    p.text("Printed 2026-11-22 09:41\n")
    p.text("Scan the code for your live position\n")
    p.cut(mode="PART")


def sample(host, port, payload):
    p = Network(host, port=int(port), timeout=10)
    p.set(align="center", bold=True, double_height=True, double_width=True)
    p.text("PYTHON ESCPOS\n")
    p.set(align="left", normal_textsize=True, bold=False)
    p.text("plain text line\n")
    p.qr(payload, ec=QR_ECLEVEL_M, size=5, native=True)
    image = Image.new("1", (96, 48), 1)
    ImageDraw.Draw(image).rectangle([8, 8, 87, 39], fill=0)
    p.image(image)
    p.text("after image\n")
    p.cut()
    p.close()


def bench(host, port, count, payload):
    dummy = Dummy()
    standard_ticket(dummy, payload)
    size = len(dummy.output)
    p = Network(host, port=int(port), timeout=30)
    p.open()
    start = time.perf_counter()
    for _ in range(int(count)):
        standard_ticket(p, payload)
    elapsed = time.perf_counter() - start
    p.close()
    print(json.dumps({"bytes_per_ticket": size, "tickets": int(count), "seconds": elapsed}))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"sample": sample, "bench": bench}[command](*args)
