"""Telecom user-side data: the simulated phone and its surroundings.

Shapes, defaults and enum values mirror upstream's `telecom/user_data_model.py` (no prose);
the enums keep upstream's `(str, Enum)` form, which decides how they format and serialize.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _NoExtra(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SimStatus(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    ACTIVE = "active"
    MISSING = "missing"
    LOCKED_PIN = "locked_pin"
    LOCKED_PUK = "locked_puk"


class NetworkTechnology(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    NONE = "none"
    TWO_G = "2G"
    THREE_G = "3G"
    FOUR_G = "4G"
    FIVE_G = "5G"


class NetworkModePreference(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    FOUR_G_5G_PREFERRED = "4g_5g_preferred"
    FOUR_G_ONLY = "4g_only"
    THREE_G_ONLY = "3g_only"
    TWO_G_ONLY = "2g_only"


class SignalStrength(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    NONE = "none"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class PerformanceLevel(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    UNKNOWN = "unknown"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class NetworkStatus(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    CONNECTED = "connected"
    SEARCHING = "searching"
    NO_SERVICE = "no_service"
    EMERGENCY_ONLY = "emergency_only"


class APNNames(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    INTERNET = "internet"
    BROKEN = "broken"


class APNSettings(_NoExtra):
    apn_name: APNNames = APNNames.INTERNET
    reset_at_reboot: bool = False
    mms_apn: str | None = "mms"
    mmsc_url: str | None = "http://mms.carrier.com/mms/wapenc"
    mms_proxy: str | None = None
    mms_port: int | None = None


class VpnDetails(_NoExtra):
    server_address: str | None = None
    protocol: str | None = None
    server_performance: PerformanceLevel = Field(default=PerformanceLevel.UNKNOWN,
                                                 validate_default=True)


class AppPermissions(_NoExtra):
    sms: bool = False
    storage: bool = False
    phone: bool = False
    network: bool = False


class AppStatus(_NoExtra):
    app_name: str
    permissions: AppPermissions = Field(default_factory=AppPermissions)


def _default_apps() -> dict[str, AppStatus]:
    return {"messaging": AppStatus(app_name="messaging", permissions=AppPermissions(
                sms=True, storage=True, phone=True)),
            "browser": AppStatus(app_name="browser", permissions=AppPermissions(
                network=True, storage=True))}


def _enum(default: Any) -> Any:
    return Field(default=default, validate_default=True)


class MockPhoneAttributes(_NoExtra):
    sim_card_status: SimStatus = _enum(SimStatus.ACTIVE)
    sim_card_missing: bool = False
    airplane_mode: bool = False
    network_signal_strength: SignalStrength = _enum(SignalStrength.GOOD)
    network_technology_connected: NetworkTechnology = _enum(NetworkTechnology.FIVE_G)
    network_connection_status: NetworkStatus = _enum(NetworkStatus.CONNECTED)
    battery_level: int = 80
    data_enabled: bool = True
    roaming_enabled: bool = False
    network_mode_preference: NetworkModePreference = _enum(
        NetworkModePreference.FOUR_G_5G_PREFERRED)
    active_apn_settings: APNSettings = Field(default_factory=APNSettings)
    wifi_enabled: bool = False
    wifi_connected: bool = False
    wifi_ssid: str | None = None
    wifi_signal_strength: SignalStrength = _enum(SignalStrength.NONE)
    wifi_calling_enabled: bool = False
    wifi_calling_mms_over_wifi: bool = False
    data_saver_mode: bool = False
    vpn_enabled_setting: bool = False
    vpn_connected: bool = False
    vpn_details: VpnDetails | None = None
    app_statuses: dict[str, AppStatus] = Field(default_factory=_default_apps)


class PaymentRequest(_NoExtra):
    bill_id: str
    amount_due: float
    paid: bool = False


def _default_signal() -> dict[NetworkTechnology, SignalStrength]:
    return {NetworkTechnology.TWO_G: SignalStrength.POOR,
            NetworkTechnology.THREE_G: SignalStrength.FAIR,
            NetworkTechnology.FOUR_G: SignalStrength.GOOD,
            NetworkTechnology.FIVE_G: SignalStrength.EXCELLENT}


class UserSurroundings(_NoExtra):
    name: str | None = None
    phone_number: str | None = None
    is_abroad: bool = False
    roaming_allowed: bool = False
    signal_strength: dict[NetworkTechnology, SignalStrength] = Field(
        default_factory=_default_signal)
    mobile_data_usage_exceeded: bool = False
    line_active: bool = True
    payment_request: PaymentRequest | None = None


class TelecomUserDB(_NoExtra):
    device: MockPhoneAttributes = Field(default_factory=MockPhoneAttributes)
    surroundings: UserSurroundings = Field(default_factory=UserSurroundings)
