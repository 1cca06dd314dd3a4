# The endpoints that ssh hosts get, made by every build: nsperf-static for this machine's
# architecture and nsperf-static-ARCH for each other one of NS_ENDPOINT_ARCHES that a cross
# compiler is installed for (netsurvey deploys to each host the one for its `uname -m`).
#
# Each is a nested build of this tree (NS_ENDPOINT_ONLY: nsperf and ns_common, nothing else),
# compiled optimised, without this build's sanitizers or fuzzing instrumentation, and linked
# -static; the static preset's own nsperf is already the native one, so it is copied. A build
# without a cross compiler (or without the target's jansson) still builds, and says which
# endpoint it lacks; netsurvey's preflight then refuses hosts of that architecture, naming the
# missing build.
include(ExternalProject)

# Debian's name of an architecture (the packages: gcc-aarch64-linux-gnu, libjansson-dev:arm64)
function(ns_debian_arch arch out)
    if(arch STREQUAL "x86_64")
        set(${out} amd64 PARENT_SCOPE)
    elseif(arch STREQUAL "aarch64")
        set(${out} arm64 PARENT_SCOPE)
    else()
        set(${out} ${arch} PARENT_SCOPE)
    endif()
endfunction()

if(NS_STATIC_NSPERF)
    add_custom_command(OUTPUT ${NS_BIN_DIR}/nsperf-static
        COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:nsperf> ${NS_BIN_DIR}/nsperf-static
        DEPENDS nsperf VERBATIM)
    add_custom_target(nsperf_static ALL DEPENDS ${NS_BIN_DIR}/nsperf-static)
else()
    ExternalProject_Add(nsperf_static
        SOURCE_DIR ${PROJECT_SOURCE_DIR}
        BINARY_DIR ${PROJECT_BINARY_DIR}/nsperf-static
        CMAKE_ARGS -DNS_ENDPOINT_ONLY=ON -DNS_STATIC_NSPERF=ON -DCMAKE_BUILD_TYPE=Release
                   -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DNS_WERROR=${NS_WERROR}
        INSTALL_COMMAND ${CMAKE_COMMAND} -E copy_if_different <BINARY_DIR>/bin/nsperf
                        ${NS_BIN_DIR}/nsperf-static
        BUILD_ALWAYS ON
        BUILD_BYPRODUCTS ${NS_BIN_DIR}/nsperf-static
        USES_TERMINAL_BUILD OFF)
endif()
install(PROGRAMS ${NS_BIN_DIR}/nsperf-static DESTINATION bin)

# NS_CROSS_ENDPOINTS: the architectures cross-built here (tests read it: a test of an aarch64
# endpoint fails, not skips, where this build made one)
set(NS_CROSS_ENDPOINTS "")
foreach(arch IN LISTS NS_ENDPOINT_ARCHES)
    if(arch STREQUAL CMAKE_SYSTEM_PROCESSOR)
        continue()
    endif()
    ns_debian_arch(${arch} deb)
    string(REPLACE "_" "-" gccpkg "gcc-${arch}-linux-gnu")
    set(packages "${gccpkg} libc6-dev-${deb}-cross libjansson-dev:${deb}")
    find_program(NS_CROSS_CC_${arch} ${arch}-linux-gnu-gcc)
    if(NOT NS_CROSS_CC_${arch})
        message(WARNING "no nsperf-static-${arch}: no ${arch}-linux-gnu-gcc; netsurvey will "
            "refuse ${arch} hosts (Debian: dpkg --add-architecture ${deb} && apt-get install "
            "${packages})")
        file(REMOVE ${NS_BIN_DIR}/nsperf-static-${arch}) # an older build's would be deployed
        continue()
    endif()
    # the target's jansson: the cross compiler finds it in the multiarch directory or says the
    # bare name back
    execute_process(COMMAND ${NS_CROSS_CC_${arch}} -print-file-name=libjansson.a
        OUTPUT_VARIABLE jansson OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT IS_ABSOLUTE "${jansson}")
        message(WARNING "no nsperf-static-${arch}: ${arch}-linux-gnu-gcc finds no libjansson.a "
            "for ${arch}; netsurvey will refuse ${arch} hosts (Debian: dpkg --add-architecture "
            "${deb} && apt-get install libjansson-dev:${deb})")
        file(REMOVE ${NS_BIN_DIR}/nsperf-static-${arch})
        continue()
    endif()
    ExternalProject_Add(nsperf_static_${arch}
        SOURCE_DIR ${PROJECT_SOURCE_DIR}
        BINARY_DIR ${PROJECT_BINARY_DIR}/nsperf-static-${arch}
        CMAKE_ARGS -DNS_ENDPOINT_ONLY=ON -DNS_STATIC_NSPERF=ON -DCMAKE_BUILD_TYPE=Release
                   -DNS_CROSS_ARCH=${arch}
                   -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/linux-gnu-cross.cmake
                   -DNS_WERROR=${NS_WERROR}
        INSTALL_COMMAND ${CMAKE_COMMAND} -E copy_if_different <BINARY_DIR>/bin/nsperf
                        ${NS_BIN_DIR}/nsperf-static-${arch}
        BUILD_ALWAYS ON
        BUILD_BYPRODUCTS ${NS_BIN_DIR}/nsperf-static-${arch}
        USES_TERMINAL_BUILD OFF)
    install(PROGRAMS ${NS_BIN_DIR}/nsperf-static-${arch} DESTINATION bin)
    list(APPEND NS_CROSS_ENDPOINTS ${arch})
    message(STATUS "nsperf-static-${arch}: cross-built with ${NS_CROSS_CC_${arch}}")
endforeach()
