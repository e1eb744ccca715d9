/* A test fixture, never shipped: a one-function stand-in for Windows'
 * bcryptprimitives.dll, which Debian's Wine 8.0 lacks. Rust's standard library (1.78
 * and later) gets its random bytes from that DLL's ProcessPrng, so without it argus.exe
 * does not start under Wine 8.0 at all. Real Windows (10 and later) has the DLL. Here
 * ProcessPrng is RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 * .ci/run builds it with Debian's mingw-w64 and puts it beside argus.exe. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
