# embed.cmake - turn a text file into a C array at build time, so that the binary carries it.
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
# Defines `const unsigned char NAME[]` (NUL-terminated) and `const size_t NAME_len`.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# 16 bytes a line keeps the generated file readable in a debugger.
string(REGEX REPLACE "((0x..,){16})" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUT}.tmp"
"/* Generated from ${IN} by embed.cmake; do not edit. */
#include <stddef.h>

extern const unsigned char ${NAME}[];
extern const size_t ${NAME}_len;

const unsigned char ${NAME}[] = {
    ${bytes}0x00};
const size_t ${NAME}_len = ${len};
")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
