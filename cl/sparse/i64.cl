// int64 values, summed exactly: a product or partial sum outside int64
// raises the overflow flag, and the host then decides with exact sums.
#undef VT
#undef SFX
#undef VT_INT
#undef VT_64
#undef BT
#undef AS_V
#undef AS_B
#undef CAS
#define VT long
#define SFX i64
#define VT_INT 1
#define VT_64 1
#define BT long
#define AS_V as_long
#define AS_B as_long
#define CAS atom_cmpxchg
