"""A 1,500-level directory chain in the working folder (the host's clean-up once crashed on
it and left both temporary folders), then fill the folder past its size cap."""
import os
for _ in range(1500):
    os.mkdir("d")
    os.chdir("d")
written = 0
try:
    with open("/tmp/big", "wb") as fh:
        while written < 200 * 2**20:
            fh.write(b"x" * 2**20)
            written += 2**20
except OSError:
    pass
if written >= 100 * 2**20:
    print("ESCAPED: wrote", written >> 20, "MB into the working folder")
