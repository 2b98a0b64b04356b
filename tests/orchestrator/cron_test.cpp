#include "orchestrator/cron.h"
