# Strict warnings for every target in the project; -Werror with NS_WERROR (every preset but dev).
set(NS_WARNINGS
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wformat=2
    -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition -Wvla
    -Wpointer-arith -Wcast-qual -Wwrite-strings -Wundef -Wnull-dereference
    -Wmissing-declarations -Wredundant-decls -Wimplicit-fallthrough)
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    list(APPEND NS_WARNINGS -Wduplicated-cond -Wduplicated-branches -Wlogical-op)
endif()
add_compile_options(${NS_WARNINGS})
if(NS_WERROR)
    add_compile_options(-Werror)
endif()
if(NS_TSAN)
    # ThreadSanitizer: nsperf runs a control thread beside the data threads of every test.
    add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
    add_link_options(-fsanitize=thread)
endif()
if(NS_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=address,undefined)
endif()

# ns_add_test(NAME SOURCES ... LIBS ... LABELS ... [TIMEOUT S]): one cmocka executable under ctest
# (default label unit, timeout 60 s).
function(ns_add_test name)
    cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
    add_executable(${name} ${T_SOURCES})
    target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CMOCKA)
    add_test(NAME ${name} COMMAND ${name})
    if(NOT T_TIMEOUT)
        set(T_TIMEOUT 60)
    endif()
    if(NOT T_LABELS)
        set(T_LABELS unit)
    endif()
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}"
        ENVIRONMENT "NS_SOURCE_DIR=${PROJECT_SOURCE_DIR};NS_BINARY_DIR=${PROJECT_BINARY_DIR}")
endfunction()

# ns_embed_files(OUT_VAR PREFIX FILE...): each FILE (a path) compiled in as the C array
# <PREFIX><file name as a C identifier> (cmake/embed.cmake), rebuilt when the file changes; the
# generated sources are appended to OUT_VAR.
function(ns_embed_files out_var prefix)
    set(srcs ${${out_var}})
    foreach(in ${ARGN})
        get_filename_component(base ${in} NAME)
        string(MAKE_C_IDENTIFIER "${prefix}${base}" sym)
        set(out ${CMAKE_CURRENT_BINARY_DIR}/${sym}.c)
        add_custom_command(
            OUTPUT ${out}
            COMMAND ${CMAKE_COMMAND} -DIN=${in} -DOUT=${out} -DNAME=${sym}
                    -P ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
            DEPENDS ${in} ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
            COMMENT "Embedding ${base}"
            VERBATIM)
        list(APPEND srcs ${out})
    endforeach()
    set(${out_var} ${srcs} PARENT_SCOPE)
endfunction()
