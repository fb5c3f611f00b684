"""Writes the NumPy fixtures of package npy's tests: run from this folder with Debian's Python,
/usr/bin/python3 make_fixtures.py. Every array holds v[i] = i/7 - 1.3 at C-order index i (as
float32 where the dtype is float32), so the tests can recompute every value."""
import numpy as np


def vals(shape, dtype=np.float64):
    n = int(np.prod(shape))
    return (np.arange(n) / 7 - 1.3).reshape(shape).astype(dtype)


np.save("f8_c_2x3.npy", vals((2, 3)))
np.save("f8_f_3x4.npy", np.asfortranarray(vals((3, 4))))
np.save("f4_c_2x3.npy", vals((2, 3), np.float32))
np.save("f4_f_3x2.npy", np.asfortranarray(vals((3, 2), np.float32)))
np.save("f8_1d_5.npy", vals((5,)))
np.save("f8_0d.npy", vals(()))
np.save("f8_be_2x2.npy", vals((2, 2)).astype(">f8"))
with open("f8_v2_2x3.npy", "wb") as f:
    np.lib.format.write_array(f, vals((2, 3)), version=(2, 0))
np.save("i8_2x2.npy", np.arange(4).reshape(2, 2))
np.save("f8_3d.npy", vals((2, 2, 2)))
np.savez("stored.npz", theta=vals((4, 2)), x=np.asfortranarray(vals((4, 3))), w=vals((4,)))
np.savez_compressed("deflated.npz", theta=vals((4, 2)), x=vals((4, 3), np.float32), w=vals((4,)))
