//! `GLSL.std.450` extended-instruction numbers, for `FnEmit::glsl` (the operation
//! families that lower to the extended instruction set name them from here).
//!
//! A low-level module of `emit`: it imports nothing.

pub const ROUND_EVEN: u32 = 2;
pub const TRUNC: u32 = 3;
pub const FABS: u32 = 4;
pub const SABS: u32 = 5;
pub const FLOOR: u32 = 8;
pub const CEIL: u32 = 9;
pub const FRACT: u32 = 10;
pub const SIN: u32 = 13;
pub const COS: u32 = 14;
pub const TAN: u32 = 15;
pub const ASIN: u32 = 16;
pub const ACOS: u32 = 17;
pub const ATAN: u32 = 18;
pub const SINH: u32 = 19;
pub const COSH: u32 = 20;
pub const TANH: u32 = 21;
pub const EXP2: u32 = 29;
pub const LOG2: u32 = 30;
pub const SQRT: u32 = 31;
pub const INVERSE_SQRT: u32 = 32;
pub const FMIN: u32 = 37;
pub const UMIN: u32 = 38;
pub const SMIN: u32 = 39;
pub const FMAX: u32 = 40;
pub const UMAX: u32 = 41;
pub const SMAX: u32 = 42;
pub const SCLAMP: u32 = 45;
pub const FMA: u32 = 50;
pub const FREXP_STRUCT: u32 = 52;
pub const LDEXP: u32 = 53;
pub const PACK_HALF_2X16: u32 = 58;
pub const UNPACK_HALF_2X16: u32 = 62;
pub const FIND_ILSB: u32 = 73;
pub const FIND_SMSB: u32 = 74;
pub const FIND_UMSB: u32 = 75;
pub const NMIN: u32 = 79;
pub const NMAX: u32 = 80;
pub const NCLAMP: u32 = 81;
