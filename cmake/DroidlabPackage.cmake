# The Debian package (issue 17 §5): `cpack -G DEB` in the build folder (or
# `cpack --config BUILD/CPackConfig.cmake -G DEB -B OUTDIR`) writes droidlab_VERSION_amd64.deb
# with the binary, the systemd units, the sysusers and udev files and the configuration.
# Dependencies are computed by dpkg-shlibdeps (Debian's dpkg-dev) from the binary's libraries.
# What the package holds, and how it is tested: deploy/README.md ("The Debian package").
#
# `make install` and cpack install only what is built already (they do not build `all`, which
# would be every test and benchmark): build the target droidlab first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

include(GNUInstallDirs)
set(_deploy ${CMAKE_CURRENT_SOURCE_DIR}/deploy)

# The binary, where Debian's own programs are.
install(TARGETS droidlab RUNTIME DESTINATION bin)

# The units: droidlab.service names /usr/local/bin/droidlab (a hand install); the package's copy
# names /usr/bin/droidlab.
file(READ ${_deploy}/droidlab.service _unit)
string(REPLACE "/usr/local/bin/droidlab" "/usr/bin/droidlab" _unit "${_unit}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/deb/droidlab.service "${_unit}")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/deb/droidlab.service ${_deploy}/adb.service
        DESTINATION /lib/systemd/system)
install(FILES ${_deploy}/droidlab.sysusers.conf DESTINATION /usr/lib/sysusers.d
        RENAME droidlab.conf)
# Not 51-android.rules: Debian's android-sdk-platform-tools-common (which adb recommends) ships
# /lib/udev/rules.d/51-android.rules, and two packages may not own one path.
install(FILES ${_deploy}/51-android.rules DESTINATION /lib/udev/rules.d
        RENAME 60-droidlab-android.rules)
# /etc/droidlab/droidlab.json: a conffile that starts the daemon safely as it is (loopback, no
# token); the example with every key, and the monitoring files, under /usr/share/doc.
install(FILES ${_deploy}/deb/droidlab.json DESTINATION /etc/droidlab)
install(FILES ${_deploy}/droidlab.example.json ${_deploy}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${_deploy}/prometheus ${_deploy}/grafana
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME droidlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR droidlab)
set(CPACK_PACKAGE_CONTACT "droidlab maintainers <droidlab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Android device lab daemon: launch times over adb, REST API")
# The synopsis is the summary above; this is the extended description under it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "droidlab serve drives the Android phones attached to a lab host over adb and\n\
measures app launch times, looper stats, CPU and memory from the outside,\n\
keeps the history in SQLite or PostgreSQL and serves it through a REST API,\n\
a dashboard and Prometheus metrics.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # droidlab_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "tzdata")
# ca-certificates: the CAs an https:// webhook's certificate is checked against.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "adb, ca-certificates")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus, postgresql")
# postinst: the droidlab user (systemd-sysusers, or useradd in a root without systemd);
# conffiles: /etc/droidlab/droidlab.json, so an edited configuration survives upgrades.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${_deploy}/deb/postinst ${_deploy}/deb/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
