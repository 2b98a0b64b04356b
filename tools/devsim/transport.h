// The device side of the ADB transport over TCP, as adbd speaks it after `adb connect`:
// answer CNXN at once (with AUTH only under `devsim-fault unauthorized`), accept OPEN for shell
// services, send output in WRTE messages with one WRTE outstanding per stream until the host
// OKAYs it, end with CLSE.
// Several devices can run in one process, each on its own port, all on one thread.
// No Asio in this header: the io_context and sockets live in transport.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "tools/devsim/android/simulated_android.h"

namespace droidlab::devsim {

class DeviceHost {
 public:
  DeviceHost();
  ~DeviceHost();
  DeviceHost(const DeviceHost&) = delete;
  DeviceHost& operator=(const DeviceHost&) = delete;

  // Listens for the adb server on bind_address:port (0: the system picks a free port).
  // Returns the bound port, or why listening failed.
  std::variant<std::uint16_t, std::string> AddDevice(std::shared_ptr<SimulatedAndroid> android,
                                                     const std::string& bind_address,
                                                     std::uint16_t port);

  // Serves every device until SIGINT or SIGTERM. Returns normally then.
  void Run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace droidlab::devsim
