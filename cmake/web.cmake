# The web client (docs/web.md): the library's session client and formats
# compiled to WebAssembly with emscripten, beside the page's own files,
# into ${CMAKE_BINARY_DIR}/web, which `ensemble serve --http` serves from
# the build tree (and `cmake --install` puts in share/ensemble/web). Left
# out when emcc is missing (the browser tests then skip).
find_program(ENS_EMCC emcc)
option(ENS_WEB "Build the web client (needs emscripten)" ON)
if(NOT ENS_WEB OR NOT ENS_EMCC)
  message(STATUS "web client: not built (ENS_WEB=${ENS_WEB}, emcc: ${ENS_EMCC})")
  return()
endif()

set(ENS_WEB_DIR ${CMAKE_BINARY_DIR}/web)
set(L ${CMAKE_SOURCE_DIR}/src/lib)
# What the browser needs: documents, transactions and undo, the three
# formats' readers, writers, rules and edits, and the session client.
# Not the server, its store (SQLite), version control, the renderers
# (rlottie, librsvg), archives (zlib, libzip) or libxml2's check.
file(GLOB ENS_WASM_SOURCES CONFIGURE_DEPENDS
     ${L}/util/*.c ${L}/model/*.c ${L}/txn/*.c ${L}/formats/format.c
     ${L}/formats/svg/*.c ${L}/formats/sfd/*.c ${L}/formats/lottie/*.c
     ${CMAKE_SOURCE_DIR}/src/wasm/*.c)
list(FILTER ENS_WASM_SOURCES EXCLUDE REGEX "/(render[^/]*|check|tgs|dotlottie|container)\\.c$")
list(APPEND ENS_WASM_SOURCES ${L}/sync/client.c ${L}/sync/pending.c ${L}/sync/msg.c ${L}/sync/history.c
     ${L}/sync/keys.c ${L}/sync/net.c)
file(GLOB ENS_WASM_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/ensemble/*.h ${L}/*/*.h ${L}/formats/*/*.h
     ${CMAKE_SOURCE_DIR}/src/wasm/*.h ${CMAKE_SOURCE_DIR}/src/wasm/nozmq/*.h)

set(ENS_WASM_EXPORTS
    _malloc _free _ensw_error _ensw_new _ensw_free _ensw_handle _ensw_tick _ensw_link_lost _ensw_state _ensw_seq
    _ensw_pending _ensw_site _ensw_kind _ensw_doc_hash _ensw_undo _ensw_set_selection _ensw_set_pointer
    _ensw_clear_pointer _ensw_svg_text _ensw_svg_ids _ensw_svg_translate _ensw_svg_delete _ensw_svg_colour
    _ensw_svg_order _ensw_glyphs _ensw_font_info _ensw_glyph _ensw_glyph_outline _ensw_glyph_move _ensw_glyph_width
    _ensw_glyph_add_point _ensw_glyph_remove_point _ensw_lottie_text _ensw_lottie_move_keyframe _ensw_lottie_shift_layer
    _ensw_lottie_find _ensw_name _ensw_id_mark _ensw_id_floor)
string(REPLACE ";" "," ENS_WASM_EXPORTS_CSV "${ENS_WASM_EXPORTS}")

add_custom_command(
  OUTPUT ${ENS_WEB_DIR}/ensemble.js ${ENS_WEB_DIR}/ensemble.wasm
  COMMAND ${CMAKE_COMMAND} -E make_directory ${ENS_WEB_DIR}
  # Debian's emscripten runs its JavaScript tools with node; Debian's
  # node modules (acorn) are found through NODE_PATH.
  COMMAND ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs
          ${ENS_EMCC} -O2 -std=gnu11 -DENS_WASM=1
          -I${CMAKE_SOURCE_DIR}/src/wasm/nozmq -I${CMAKE_SOURCE_DIR}/include -I${L}
          ${ENS_WASM_SOURCES}
          -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=EnsembleWasm -sENVIRONMENT=web,node
          -sALLOW_MEMORY_GROWTH=1 -sEXPORTED_FUNCTIONS=${ENS_WASM_EXPORTS_CSV}
          -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,stringToUTF8,lengthBytesUTF8,HEAPU8
          -o ${ENS_WEB_DIR}/ensemble.js
  DEPENDS ${ENS_WASM_SOURCES} ${ENS_WASM_HEADERS}
  COMMENT "Building the web client's WebAssembly (emcc)"
  VERBATIM)

# The page's own files, copied as they are.
file(GLOB_RECURSE ENS_WEB_FILES CONFIGURE_DEPENDS RELATIVE ${CMAKE_SOURCE_DIR}/web ${CMAKE_SOURCE_DIR}/web/*)
set(ENS_WEB_COPIES)
foreach(f ${ENS_WEB_FILES})
  add_custom_command(OUTPUT ${ENS_WEB_DIR}/${f}
                     COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/web/${f} ${ENS_WEB_DIR}/${f}
                     DEPENDS ${CMAKE_SOURCE_DIR}/web/${f})
  list(APPEND ENS_WEB_COPIES ${ENS_WEB_DIR}/${f})
endforeach()

# The animation view's player: lottie-web's light build (SVG renderer, no
# expression evaluation, so an animation from a collaborator runs no code),
# from npm, pinned by vendor/web/package-lock.json and installed there by
# scripts/bootstrap (`npm ci`). Without it the page shows the timeline and
# says the player is missing.
set(ENS_LOTTIE_WEB ${CMAKE_SOURCE_DIR}/vendor/web/node_modules/lottie-web)
if(EXISTS ${ENS_LOTTIE_WEB}/build/player/lottie_light.min.js)
  foreach(pair "build/player/lottie_light.min.js=lottie_light.min.js" "LICENSE.md=lottie-web-LICENSE.md")
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 from)
    list(GET pair 1 to)
    add_custom_command(OUTPUT ${ENS_WEB_DIR}/vendor/${to}
                       COMMAND ${CMAKE_COMMAND} -E copy ${ENS_LOTTIE_WEB}/${from} ${ENS_WEB_DIR}/vendor/${to}
                       DEPENDS ${ENS_LOTTIE_WEB}/${from})
    list(APPEND ENS_WEB_COPIES ${ENS_WEB_DIR}/vendor/${to})
  endforeach()
else()
  message(WARNING "web client: no animation player (run `npm ci` in vendor/web, or scripts/bootstrap)")
endif()

add_custom_target(ensemble_web ALL DEPENDS ${ENS_WEB_DIR}/ensemble.js ${ENS_WEB_DIR}/ensemble.wasm ${ENS_WEB_COPIES})
install(DIRECTORY ${ENS_WEB_DIR}/ DESTINATION share/ensemble/web)
set(ENS_WEB_BUILT ON)

# The WebAssembly client against a real `ensemble serve --http` (node,
# with the npm package ws that scripts/bootstrap installs in tests/web).
find_program(ENS_NODE node)
if(ENS_TESTS AND ENS_NODE)
  add_test(NAME wasm_client COMMAND ${ENS_NODE} ${CMAKE_SOURCE_DIR}/tests/web/session.test.mjs ${CMAKE_BINARY_DIR}
                                    ${CMAKE_SOURCE_DIR})
  set_tests_properties(wasm_client PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)
endif()
