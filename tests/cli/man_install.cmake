# man_install.cmake - `cmake --install` of the man component puts every page where man(1) looks:
# PREFIX/share/man/man1 and man5 (GNUInstallDirs), and `man -w` finds each there by name.
# Usage: cmake -DBUILD=<build dir> -DPREFIX=<empty dir to install into> -P man_install.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --component man --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install --component man failed: ${rc}")
endif()
foreach(page man1/netsurvey.1 man1/nsperf.1 man5/netsurvey-plan.5 man5/netsurvey-journal.5)
    if(NOT EXISTS ${PREFIX}/share/man/${page})
        message(FATAL_ERROR "not installed: ${PREFIX}/share/man/${page}")
    endif()
    get_filename_component(name ${page} NAME_WE)
    string(REGEX REPLACE "^man([0-9]).*" "\\1" section ${page})
    execute_process(COMMAND man -M ${PREFIX}/share/man -w ${section} ${name}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE where OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0 OR NOT where STREQUAL "${PREFIX}/share/man/${page}")
        message(FATAL_ERROR "man -w ${section} ${name} gives '${where}' (${rc})")
    endif()
endforeach()
file(REMOVE_RECURSE ${PREFIX})
message(STATUS "4 pages installed under share/man and found by man -w")
