// A walk over a FITS file's headers by Glint itself, before CFITSIO reads them: CFITSIO trusts the
// keywords of tile-compressed images (ZIMAGE = T) and divides by ZTILEn and by the compression
// parameters (ZNAMEn/ZVALn), so a 0 there ends the process with SIGFPE.
#pragma once

#include <string>

namespace glint {

// Every HDU's header, read by Glint's own card parser before CFITSIO opens the file. Throws InputError
// naming the HDU and the keyword ("... is damaged: KEY = value (why)") when
//  - BITPIX is not 8, 16, 32, 64, -32 or -64, or NAXIS is not a whole number from 0 to 999;
//  - an image has more than 9 axes (CFITSIO's pixel readers keep 9 axis lengths on the stack: NAXIS 20
//    smashed it), an NAXISn is missing, negative or not a whole number, or the data size overflows;
//  - BSCALE or BZERO is not a finite number, or BSCALE is 0;
//  - a SIP distortion order (A_ORDER, B_ORDER, AP_ORDER, BP_ORDER) is not a whole number from 0 to 9;
//  - a tile-compressed HDU (ZIMAGE = T) has a ZBITPIX, ZNAXIS, ZNAXISn, ZTILEn, ZDITHER0 or compression
//    parameter (RICE BLOCKSIZE/BYTEPIX; HCOMPRESS SCALE/SMOOTH must be numbers) that CFITSIO cannot
//    decompress safely, or floating-point data in an integer-only compression (RICE_1, PLIO_1,
//    HCOMPRESS_1) without the ZSCALE/ZZERO of quantisation: those tiles hold integers, which CFITSIO
//    would reinterpret as float bits (denormals).
// Stops quietly where the file stops looking like FITS (no END card, no XTENSION): CFITSIO then reports
// what is wrong.
void checkFitsHeaders(const std::string& path);

} // namespace glint
