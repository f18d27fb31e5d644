"""Telecom domain, user side: the 30 phone tools of the user simulator, and task helpers.

Mirrors upstream's `telecom/user_tools.py` (behaviour; the texts the tools return are part of
that behaviour). The phone DB (`telecom_user_models.py`) is a pydantic model in a private
`ModelDB` per task-trial, mutated in place as upstream does.
"""

from __future__ import annotations

from typing import Any, Literal

from a2abench.benchmarks.tau2.db import ModelDB
from a2abench.benchmarks.tau2.domains.telecom_user_models import (
    APNNames,
    APNSettings,
    AppPermissions,
    MockPhoneAttributes,
    NetworkModePreference,
    NetworkStatus,
    NetworkTechnology,
    PerformanceLevel,
    SignalStrength,
    SimStatus,
    TelecomUserDB,
    UserSurroundings,
    VpnDetails,
)
from a2abench.benchmarks.tau2.toolkit import Toolkit, ToolType, tool

_NO_SERVICE = (NetworkStatus.NO_SERVICE, NetworkTechnology.NONE, SignalStrength.NONE)
_SIGNAL_ICONS = {SignalStrength.NONE: "📵 No Signal", SignalStrength.POOR: "📶¹ Poor",
                 SignalStrength.FAIR: "📶² Fair", SignalStrength.GOOD: "📶³ Good",
                 SignalStrength.EXCELLENT: "📶⁴ Excellent"}
_SPEEDS = {NetworkTechnology.TWO_G: (0.1, 0.4), NetworkTechnology.THREE_G: (1.0, 5.0),
           NetworkTechnology.FOUR_G: (10.0, 100.0), NetworkTechnology.FIVE_G: (50.0, 500.0),
           NetworkTechnology.NONE: (0.0, 0.0)}
_SIGNAL_FACTORS = {SignalStrength.POOR: 0.2, SignalStrength.FAIR: 0.5, SignalStrength.GOOD: 0.8,
                   SignalStrength.EXCELLENT: 1.0, SignalStrength.NONE: 0.0}
_SPEED_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}


def _on_off(flag: Any) -> str:
    return "ON" if flag else "OFF"


class TelecomUserTools(Toolkit[ModelDB[TelecomUserDB]]):
    """Upstream's `TelecomUserTools`; method order is upstream's (it is the schema order)."""

    def __init__(self, db: ModelDB[TelecomUserDB]) -> None:
        super().__init__(db)
        # Upstream shares one VpnDetails object (a class attribute) that `break_vpn` degrades;
        # here each task-trial gets its own, so one task cannot leak into the next.
        self.default_vpn_details = VpnDetails(server_address="192.168.1.1", protocol="OpenVPN",
                                              server_performance=PerformanceLevel.EXCELLENT)

    @property
    def device(self) -> MockPhoneAttributes:
        return self.db.model.device

    @property
    def surroundings(self) -> UserSurroundings:
        return self.db.model.surroundings

    def set_user_info(self, name: str, phone_number: str) -> None:
        self.surroundings.name = name
        self.surroundings.phone_number = phone_number

    def set_user_location(self, abroad: bool) -> None:
        self.surroundings.is_abroad = abroad

    def _status(self) -> str:
        return f"Status Bar: {self._check_status_bar()}"

    @tool(ToolType.READ)
    def check_status_bar(self) -> str:
        return self._status()

    def _check_status_bar(self) -> str:
        d = self.device
        indicators = []
        if d.airplane_mode:
            indicators.append("✈️ Airplane Mode")
        else:
            indicators.append(_SIGNAL_ICONS.get(d.network_signal_strength, "📵 No Signal"))
            if d.network_technology_connected != NetworkTechnology.NONE:
                indicators.append(d.network_technology_connected.value)
            if d.data_enabled and d.network_technology_connected != NetworkTechnology.NONE:
                indicators.append("📱 Data Enabled")
                if d.data_saver_mode:
                    indicators.append("🔽 Data Saver")
            else:
                indicators.append("📵 Data Disabled")
        if d.wifi_enabled and d.wifi_connected:
            indicators.append(f"📡 Connected to {d.wifi_ssid}" if d.wifi_ssid else "📡 Enabled")
        if d.vpn_connected:
            indicators.append("🔒 VPN Connected")
        indicators.append(f"🔋 {d.battery_level}%")
        return " | ".join(indicators)

    @tool(ToolType.READ)
    def check_network_status(self) -> str:
        d = self.device
        lines = [f"Airplane Mode: {_on_off(d.airplane_mode)}",
                 f"SIM Card Status: {self._check_sim_status().value}",
                 f"Cellular Connection: {d.network_connection_status.value}",
                 f"Cellular Signal: {d.network_signal_strength.value}",
                 f"Cellular Network Type: {d.network_technology_connected.value}",
                 f"Mobile Data Enabled: {'Yes' if d.data_enabled else 'No'}",
                 f"Data Roaming Enabled: {'Yes' if d.roaming_enabled else 'No'}",
                 f"Wi-Fi Radio: {_on_off(d.wifi_enabled)}",
                 f"Wi-Fi Connected: {'Yes' if d.wifi_connected else 'No'}"]
        if d.wifi_connected:
            lines.append(f"Connected Wi-Fi Network: {d.wifi_ssid}")
        return "\n".join(lines)

    @tool(ToolType.READ)
    def check_network_mode_preference(self) -> str:
        return f"Network Mode Preference: {self.device.network_mode_preference.value}"

    @tool(ToolType.WRITE)
    def set_network_mode_preference(self, mode: NetworkModePreference | str) -> str:
        valid_mode = self._set_network_mode_preference(mode)
        if valid_mode is None:
            options = ", ".join(m.value for m in NetworkModePreference)
            return (f"Failed to set network mode: '{mode}' is not a valid option. Please use "
                    f"one of: {options}\n{self._status()}")
        return f"Preferred Network Mode set to: {valid_mode.value}\n{self._status()}"

    def _set_network_mode_preference(self, mode: Any) -> NetworkModePreference | None:
        try:
            if isinstance(mode, str):
                mode = NetworkModePreference(mode)
            self.device.network_mode_preference = mode
            self.simulate_network_search()
            return self.device.network_mode_preference  # the `mode` just set
        except ValueError:
            return None

    def _get_mobile_data_working(self) -> bool:
        d, s = self.device, self.surroundings
        if d.airplane_mode or d.network_signal_strength == SignalStrength.NONE:
            return False
        if d.network_connection_status == NetworkStatus.NO_SERVICE:
            return False
        if s.is_abroad and (not d.roaming_enabled or not s.roaming_allowed):
            return False
        return bool(d.data_enabled and not s.mobile_data_usage_exceeded)

    @tool(ToolType.READ)
    def run_speed_test(self) -> str:
        speed, description = self._run_speed_test()
        if speed is None:
            return f"Speed test failed: {description or 'Could not determine speed'}."
        advice = _SPEED_ADVICE.get(description or "", "")
        return f"Speed Test Result: {speed:.2f} Mbps ({description}). {advice}"

    def _run_speed_test(self) -> tuple[float | None, str | None]:
        if not self._get_mobile_data_working():
            return None, "No Connection"
        d = self.device
        factor = 1.0
        if (d.vpn_connected and d.vpn_details
                and d.vpn_details.server_performance == PerformanceLevel.POOR):
            factor = 0.1
        if d.data_saver_mode:
            factor *= 0.2
        low, high = _SPEEDS.get(d.network_technology_connected, (0.0, 0.0))
        signal = _SIGNAL_FACTORS.get(d.network_signal_strength, 0.0)
        speed = round((low + high) / 2.0 * signal * factor, 2)
        if speed < 1:
            return speed, "Very Poor"
        if speed < 5:
            return speed, "Poor"
        if speed < 25:
            return speed, "Fair"
        return speed, "Good" if speed < 100 else "Excellent"

    @tool(ToolType.WRITE)
    def toggle_airplane_mode(self) -> str:
        new_state = self._toggle_airplane_mode()
        return f"Airplane Mode is now {_on_off(new_state)}.\n{self._status()}"

    def _toggle_airplane_mode(self) -> bool:
        d = self.device
        was_on = d.airplane_mode
        d.airplane_mode = not was_on
        if was_on:
            d.network_connection_status = NetworkStatus.SEARCHING
            if d.wifi_enabled:
                self._wifi_down()
        else:
            self._wifi_down()
            if d.vpn_connected:
                self._disconnect_vpn()
        self.simulate_network_search()
        return d.airplane_mode

    def _wifi_down(self) -> None:
        self.device.wifi_connected = False
        self.device.wifi_ssid = None
        self.device.wifi_signal_strength = SignalStrength.NONE

    def turn_airplane_mode_on(self) -> str:
        if not self._toggle_airplane_mode():
            self._toggle_airplane_mode()
        return "Airplane Mode is now ON."

    def turn_airplane_mode_off(self) -> str:
        if self._toggle_airplane_mode():
            self._toggle_airplane_mode()
        return "Airplane Mode is now OFF."

    @tool(ToolType.READ)
    def check_sim_status(self) -> str:
        status = self._check_sim_status()
        return {SimStatus.ACTIVE: "Your SIM card is active and working.",
                SimStatus.MISSING: "No SIM card detected in the phone.",
                SimStatus.LOCKED_PIN: "The SIM card is locked with a PIN code.",
                SimStatus.LOCKED_PUK: "The SIM card is locked with a PUK code."}.get(
                    status, f"Unknown SIM status: {status.value}")

    def _check_sim_status(self) -> SimStatus:
        return SimStatus.MISSING if self.device.sim_card_missing else self.device.sim_card_status

    @tool(ToolType.WRITE)
    def reseat_sim_card(self) -> str:
        self.device.sim_card_missing = False
        self.simulate_network_search()
        return f"SIM card re-seated successfully.\n{self._status()}"

    def unseat_sim_card(self) -> str:
        self.device.sim_card_missing = True
        self.simulate_network_search()
        return "SIM card un-seated successfully."

    def lock_sim_card(self, mode: Literal["pin", "puk"]) -> str:
        if mode == "pin":
            self.device.sim_card_status = SimStatus.LOCKED_PIN
        elif mode == "puk":
            self.device.sim_card_status = SimStatus.LOCKED_PUK
        self.simulate_network_search()
        return f"SIM card locked successfully in {mode} mode."

    @tool(ToolType.WRITE)
    def toggle_data(self) -> str:
        return f"Mobile Data is now {_on_off(self._toggle_data())}.\n{self._status()}"

    def _toggle_data(self) -> bool:
        self.device.data_enabled = not self.device.data_enabled
        self.simulate_network_search()
        return self.device.data_enabled

    def turn_data_on(self) -> str:
        self.device.data_enabled = True
        return "Data connection restored."

    def turn_data_off(self) -> str:
        if self._toggle_data():
            self._toggle_data()
        return "Data connection broken."

    @tool(ToolType.WRITE)
    def toggle_roaming(self) -> str:
        return f"Data Roaming is now {_on_off(self._toggle_roaming())}.\n{self._status()}"

    def _toggle_roaming(self) -> bool:
        self.device.roaming_enabled = not self.device.roaming_enabled
        self.simulate_network_search()
        return self.device.roaming_enabled

    def turn_roaming_on(self) -> str:
        if not self._toggle_roaming():
            self._toggle_roaming()
        return "Data Roaming is now ON."

    def turn_roaming_off(self) -> str:
        if self._toggle_roaming():
            self._toggle_roaming()
        return "Data Roaming is now OFF."

    @tool(ToolType.READ)
    def check_data_restriction_status(self) -> str:
        if self.device.data_saver_mode:
            return "Data Saver mode is ON (limits data usage)."
        return "Data Saver mode is OFF."

    @tool(ToolType.WRITE)
    def toggle_data_saver_mode(self) -> str:
        new_state = self._toggle_data_saver_mode()
        return f"Data Saver Mode is now {_on_off(new_state)}.\n{self._status()}"

    def _toggle_data_saver_mode(self) -> bool:
        self.device.data_saver_mode = not self.device.data_saver_mode
        return self.device.data_saver_mode

    def turn_data_saver_mode_on(self) -> str:
        if not self._toggle_data_saver_mode():
            self._toggle_data_saver_mode()
        return "Data Saver Mode is now ON."

    def turn_data_saver_mode_off(self) -> str:
        if self._toggle_data_saver_mode():
            self._toggle_data_saver_mode()
        return "Data Saver Mode is now OFF."

    @tool(ToolType.READ)
    def check_apn_settings(self) -> str:
        settings = self.device.active_apn_settings
        return (f"Current APN Name: {settings.apn_name.value or 'Not Set'}\n"
                f"MMSC URL (for picture messages): {settings.mmsc_url or 'Not Set'}\n"
                "(These are technical settings, usually best left unchanged.)")

    @tool(ToolType.WRITE)
    def set_apn_settings(self, apn_settings: APNSettings | dict[str, Any]) -> str:
        settings: Any = apn_settings
        if isinstance(settings, dict):
            settings = APNSettings(**settings)
        self.device.active_apn_settings = settings
        status = f"APN settings set to: {settings.apn_name.value}"
        self.simulate_network_search()
        return f"{status}\n{self._status()}"

    @tool(ToolType.WRITE)
    def reset_apn_settings(self) -> str:
        self.device.active_apn_settings.reset_at_reboot = True
        self.simulate_network_search()
        return f"APN settings will reset at reboot.\n{self._status()}"

    def break_apn_settings(self) -> str:
        self.device.active_apn_settings.apn_name = APNNames.BROKEN
        self.simulate_network_search()
        return "APN settings broken. Please call reset_apn_settings() to fix."

    def break_apn_mms_setting(self) -> str:
        self.device.active_apn_settings.mmsc_url = None
        return "APN MMS setting broken. Please call reset_apn_settings() to fix."

    @tool(ToolType.READ)
    def check_wifi_status(self) -> str:
        d = self.device
        if not d.wifi_enabled:
            return "Wi-Fi is turned OFF."
        if d.wifi_connected:
            return (f"Wi-Fi is ON and connected to '{d.wifi_ssid}'. Signal strength: "
                    f"{d.wifi_signal_strength.value}.")
        return "Wi-Fi is ON but not connected to any network."

    @tool(ToolType.WRITE)
    def toggle_wifi(self) -> str:
        if self.device.airplane_mode:
            return f"Cannot change Wi-Fi settings while Airplane Mode is ON.\n{self._status()}"
        self.device.wifi_enabled = not self.device.wifi_enabled
        if not self.device.wifi_enabled:
            self._wifi_down()
        return f"Wi-Fi is now {_on_off(self.device.wifi_enabled)}.\n{self._status()}"

    @tool(ToolType.READ)
    def check_wifi_calling_status(self) -> str:
        return f"Wi-Fi Calling is currently turned {_on_off(self.device.wifi_calling_enabled)}."

    @tool(ToolType.WRITE)
    def toggle_wifi_calling(self) -> str:
        self.device.wifi_calling_enabled = not self.device.wifi_calling_enabled
        return (f"Wi-Fi Calling is now {_on_off(self.device.wifi_calling_enabled)}.\n"
                f"{self._status()}")

    def set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None) -> str:
        if self.device.wifi_calling_enabled != enabled:
            self.device.wifi_calling_enabled = not self.device.wifi_calling_enabled
        msg = f"Wi-Fi Calling is now {_on_off(enabled)}."
        if mms_over_wifi is not None:
            self.device.wifi_calling_mms_over_wifi = mms_over_wifi
            msg += f"\nMMS over Wi-Fi is now {_on_off(mms_over_wifi)}."
        return msg

    @tool(ToolType.READ)
    def check_vpn_status(self) -> str:
        d = self.device
        if d.vpn_connected:
            details = d.vpn_details.model_dump() if d.vpn_details else None
            if details:
                return f"VPN is ON and connected. Details: {details}"
            return "VPN is ON and connected (no specific details available)."
        if d.vpn_enabled_setting:
            return "VPN is turned ON in settings, but currently not connected."
        return "VPN is turned OFF."

    @tool(ToolType.WRITE)
    def connect_vpn(self) -> str:
        if self.device.vpn_connected:
            return "VPN already connected."
        self.device.vpn_connected = True
        self.device.vpn_details = self.default_vpn_details  # shared object, as upstream
        return f"VPN connected successfully.\n{self._status()}"

    @tool(ToolType.WRITE)
    def disconnect_vpn(self) -> str:
        done = self._disconnect_vpn()
        text = ("VPN disconnected successfully." if done
                else "No active VPN connection to disconnect.")
        return f"{text}\n{self._status()}"

    def _disconnect_vpn(self) -> bool:
        if not self.device.vpn_connected:
            return False
        self.device.vpn_connected = False
        self.device.vpn_details = None
        return True

    def break_vpn(self) -> str:
        self.connect_vpn()
        # Upstream's: None when the VPN did not connect, and then an AttributeError as there.
        self.device.vpn_details.server_performance = PerformanceLevel.POOR  # type: ignore[union-attr]
        return "VPN connection broken."

    @tool(ToolType.READ)
    def check_installed_apps(self) -> str:
        names = ", ".join(self.device.app_statuses.keys())
        return f"The following apps are installed on the phone: {names}"

    @tool(ToolType.READ)
    def check_app_status(self, app_name: str) -> str:
        app = self.device.app_statuses.get(app_name)
        if not app:
            return f"App '{app_name}' not found on this phone."
        lines = [f"Status for App: {app_name}"]
        allowed = _allowed(app.permissions)
        if not allowed:
            lines.append(" - Permissions: None granted.")
        else:
            lines.append(" - Permissions Granted:")
            lines.extend(f"   - {perm}" for perm in allowed)
        return "\n".join(lines)

    @tool(ToolType.READ)
    def check_app_permissions(self, app_name: str) -> str:
        app = self.device.app_statuses.get(app_name)
        if not app:
            return f"App '{app_name}' not found on this phone."
        allowed = _allowed(app.permissions)
        if not allowed:
            return f"App '{app_name}' currently has no permissions granted."
        return f"App '{app_name}' has permission for: {', '.join(allowed)}."

    @tool(ToolType.WRITE)
    def grant_app_permission(self, app_name: str, permission: str) -> str:
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if not app:
            ok, msg = False, f"App '{app_name}' not found. Cannot grant permission."
        elif permission not in (available := list(app.permissions.model_dump().keys())):
            ok, msg = False, (f"Permission '{permission}' not tracked for app '{app_name}', "
                              f"available permissions: {available}")
        else:
            setattr(app.permissions, permission, True)
            ok, msg = True, f"Permission '{permission}' granted to app '{app_name}'."
        return f"{'Success. ' if ok else 'Error. '}{msg}\n{self._status()}"

    def remove_app_permission(self, app_name: str, permission: str) -> tuple[bool, str]:
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if not app:
            return False, f"App '{app_name}' not found. Cannot remove permission."
        if not hasattr(app.permissions, permission):
            return False, f"Permission '{permission}' not tracked for app '{app_name}'."
        setattr(app.permissions, permission, False)
        return True, f"Permission '{permission}' removed from app '{app_name}'."

    @tool(ToolType.READ)
    def can_send_mms(self) -> str:
        if self._can_send_mms():
            return "Your messaging app can send MMS messages."
        return "Your messaging app cannot send MMS messages."

    def _can_send_mms(self) -> bool:
        d = self.device
        if not self._get_mobile_data_working():
            return False
        if d.network_technology_connected == NetworkTechnology.TWO_G:
            return False
        if d.wifi_calling_enabled and d.wifi_calling_mms_over_wifi:
            return False
        if d.active_apn_settings.mmsc_url is None:
            return False
        app = d.app_statuses.get("messaging")
        if app is None:
            return False
        return app.permissions.storage and app.permissions.sms

    @tool(ToolType.WRITE)
    def reboot_device(self) -> str:
        lines = []
        if self.device.active_apn_settings.reset_at_reboot:
            lines.append("Resetting APN settings...")
            self.device.active_apn_settings = APNSettings()
        lines.append("Restarting network services...")
        self.device.network_connection_status = NetworkStatus.SEARCHING
        self.simulate_network_search()
        return "\n".join(lines) + f"\n{self._status()}"

    def simulate_network_search(self) -> None:
        """Upstream's network model: SIM, mode preference and surroundings decide the link."""
        d, signals = self.device, self.surroundings.signal_strength
        if self._check_sim_status() == SimStatus.ACTIVE:
            d.network_connection_status = NetworkStatus.CONNECTED
            pref = d.network_mode_preference
            tech = NetworkTechnology.FOUR_G  # upstream's fallback for any other preference
            if pref == NetworkModePreference.FOUR_G_5G_PREFERRED:
                if signals.get(NetworkTechnology.FIVE_G, SignalStrength.NONE) != \
                        SignalStrength.NONE:
                    tech = NetworkTechnology.FIVE_G
            elif pref == NetworkModePreference.THREE_G_ONLY:
                tech = NetworkTechnology.THREE_G
            elif pref == NetworkModePreference.TWO_G_ONLY:
                tech = NetworkTechnology.TWO_G
            d.network_technology_connected = tech
            d.network_signal_strength = signals.get(tech, SignalStrength.NONE)
        else:
            self._no_service()
        if (d.airplane_mode or d.active_apn_settings.apn_name == APNNames.BROKEN
                or not self.surroundings.line_active):
            self._no_service()

    def _no_service(self) -> None:
        d = self.device
        (d.network_connection_status, d.network_technology_connected,
         d.network_signal_strength) = _NO_SERVICE

    @tool(ToolType.READ)
    def check_payment_request(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "No payment request has been made."
        return (f"You have a payment request for bill {request.bill_id} of "
                f"{request.amount_due} USD.")

    @tool(ToolType.WRITE)
    def make_payment(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "You do not have a payment request."
        request.paid = True
        return f"Payment of {request.amount_due} USD has been made for bill {request.bill_id}."

    # ------------------------------------------------------------ assertions
    def assert_airplane_mode_status(self, expected_status: bool) -> bool:
        return self.device.airplane_mode == expected_status

    def assert_service_status(self, expected_status: str) -> bool:
        return self.device.network_connection_status == NetworkStatus(expected_status)

    def assert_mobile_data_status(self, expected_status: bool) -> bool:
        return self._get_mobile_data_working() == expected_status

    def assert_mobile_roaming_status(self, expected_status: bool) -> bool:
        return self.device.roaming_enabled == expected_status

    def assert_mobile_data_saver_mode_status(self, expected_status: bool) -> bool:
        return self.device.data_saver_mode == expected_status

    def assert_internet_speed(self, expected_speed: float,
                              expected_desc: str | None = None) -> bool:
        speed, desc = self._run_speed_test()
        speed = speed or 0.0
        if expected_desc is None:
            return speed >= expected_speed
        return speed >= expected_speed and (desc or "").lower() == expected_desc.lower()

    def assert_internet_not_excellent(self) -> bool:
        return (self._run_speed_test()[1] or "").lower() != "excellent"

    def assert_can_send_mms(self, expected_status: bool) -> bool:
        return self._can_send_mms() == expected_status

    def assert_mobile_data_usage_exceeded(self, expected_status: bool) -> bool:
        return self.surroundings.mobile_data_usage_exceeded == expected_status


def _allowed(permissions: AppPermissions) -> list[str]:
    return [name.replace("_", " ").lower()
            for name, allowed in permissions.model_dump().items() if allowed]
