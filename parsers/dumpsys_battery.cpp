#include "parsers/dumpsys_battery.h"
