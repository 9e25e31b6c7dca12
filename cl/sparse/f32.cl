// float32 values, summed in float32 as cuSPARSE does.
#undef VT
#undef SFX
#undef VT_INT
#undef VT_64
#undef BT
#undef AS_V
#undef AS_B
#undef CAS
#define VT float
#define SFX f32
#define VT_INT 0
#define VT_64 0
#define BT int
#define AS_V as_float
#define AS_B as_int
#define CAS atomic_cmpxchg
