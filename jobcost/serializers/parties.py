"""Owner and vendor shapes."""

from rest_framework import serializers

from jobcost.api.serializers import InputSerializer, ResourceSerializer


class OwnerSerializer(ResourceSerializer):
    resource = "owner"
    name = serializers.CharField()
    email = serializers.EmailField(allow_blank=True)
    address = serializers.CharField(allow_blank=True)


class OwnerCreateSerializer(InputSerializer):
    output = OwnerSerializer
    name = serializers.CharField(max_length=200)
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    address = serializers.CharField(required=False, allow_blank=True, default="")


class OwnerUpdateSerializer(InputSerializer):
    output = OwnerSerializer
    name = serializers.CharField(max_length=200, required=False)
    email = serializers.EmailField(required=False, allow_blank=True)
    address = serializers.CharField(required=False, allow_blank=True)


class VendorSerializer(ResourceSerializer):
    resource = "vendor"
    name = serializers.CharField()
    email = serializers.EmailField(allow_blank=True)
    tax_id_last4 = serializers.CharField(allow_blank=True)
    trade = serializers.CharField(allow_blank=True)


class VendorCreateSerializer(InputSerializer):
    output = VendorSerializer
    name = serializers.CharField(max_length=200)
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    tax_id_last4 = serializers.RegexField(
        r"^[0-9]{4}$",
        required=False,
        allow_blank=True,
        default="",
        error_messages={"invalid": "tax_id_last4 must be exactly 4 digits."},
    )
    trade = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")


class VendorUpdateSerializer(InputSerializer):
    output = VendorSerializer
    name = serializers.CharField(max_length=200, required=False)
    email = serializers.EmailField(required=False, allow_blank=True)
    tax_id_last4 = serializers.RegexField(
        r"^[0-9]{4}$",
        required=False,
        allow_blank=True,
        error_messages={"invalid": "tax_id_last4 must be exactly 4 digits."},
    )
    trade = serializers.CharField(max_length=120, required=False, allow_blank=True)
