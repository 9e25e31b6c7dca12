// float64 values; only where the device has doubles.
#undef VT
#undef SFX
#undef VT_INT
#undef VT_64
#undef BT
#undef AS_V
#undef AS_B
#undef CAS
#ifdef HAS_FP64
#define VT double
#define SFX f64
#define VT_INT 0
#define VT_64 1
#define BT long
#define AS_V as_double
#define AS_B as_long
#define CAS atom_cmpxchg
#endif
