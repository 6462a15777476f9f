/* <complex.h> plus CMPLX/CMPLXF for compilers glibc does not offer them to
 * (it defines them only for GCC >= 4.7, and clang reports itself as GCC 4.2;
 * clang has the same builtin). */
#ifndef SHLOC_SUPPORT_CMPLX_H
#define SHLOC_SUPPORT_CMPLX_H

#include <complex.h>

#ifndef CMPLX
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif

#endif
