# SPDX-License-Identifier: MIT
include $(sort $(wildcard $(BR2_EXTERNAL_UNIONROOT_PATH)/package/*/*.mk))
