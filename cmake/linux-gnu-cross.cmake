# Toolchain file of the nested cross builds of nsperf-static (cmake/endpoints.cmake): Linux on
# NS_CROSS_ARCH (a `uname -m` spelling: aarch64, x86_64) with Debian's cross compiler
# NS_CROSS_ARCH-linux-gnu-gcc (packages gcc-aarch64-linux-gnu and libc6-dev-arm64-cross, or
# gcc-x86-64-linux-gnu and libc6-dev-amd64-cross on an arm64 machine). The libraries nsperf links
# (jansson) come from the multiarch directory /usr/lib/NS_CROSS_ARCH-linux-gnu
# (libjansson-dev:arm64 after `dpkg --add-architecture arm64`), which that compiler searches.
if(NOT NS_CROSS_ARCH)
    message(FATAL_ERROR "linux-gnu-cross.cmake: set NS_CROSS_ARCH (aarch64, x86_64)")
endif()
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${NS_CROSS_ARCH})
set(CMAKE_C_COMPILER ${NS_CROSS_ARCH}-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${NS_CROSS_ARCH}-linux-gnu)
# try_compile's projects get the variable too
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES NS_CROSS_ARCH)
# pkg-config answers for the target's .pc files, never the build machine's
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${NS_CROSS_ARCH}-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
# Libraries only from the target's directories: the cross compiler's own (/usr/ARCH-linux-gnu)
# and the multiarch one; programs from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${NS_CROSS_ARCH}-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
