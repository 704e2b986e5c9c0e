#!/bin/bash
# A guest script that never ends: USBGadgetRigTests checks that the rig reports such a guest as a failure
# (its watchdog powers it off) rather than as a pass.
echo "hanging on purpose"
while :; do sleep 60; done
