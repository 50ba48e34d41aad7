# made by make-fixtures.sh with colord 1.4.6-2.2 on 2026-12-03
# sRGB=icc-6209e0eee05d1da9df7b4e3c2da33f62 AdobeRGB1998=icc-a07f28226c40f0319868fa0890ccc8e4 Bluish=icc-a7c3b105758efd9fa9c99123d23237db
## mapping.db
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE mappings (timestamp INTEGER DEFAULT 0,device TEXT,profile TEXT);
CREATE TABLE mappings_v2 (timestamp INTEGER DEFAULT 0,device TEXT,profile TEXT,PRIMARY KEY (device, profile));
INSERT INTO mappings_v2 VALUES(1796289397841518,'xrandr-Fixture-Display','icc-a07f28226c40f0319868fa0890ccc8e4');
INSERT INTO mappings_v2 VALUES(1796289397864280,'xrandr-Fixture-Display','icc-6209e0eee05d1da9df7b4e3c2da33f62');
INSERT INTO mappings_v2 VALUES(0,'xrandr-Fixture-Display','icc-a7c3b105758efd9fa9c99123d23237db');
INSERT INTO mappings_v2 VALUES(1796289397956733,'cups-Fixture-Printer','icc-a07f28226c40f0319868fa0890ccc8e4');
COMMIT;
## storage.db
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE devices (device_id TEXT PRIMARY KEY,device TEXT);
INSERT INTO devices VALUES('xrandr-Fixture-Display',NULL);
INSERT INTO devices VALUES('cups-Fixture-Printer',NULL);
CREATE TABLE properties_v2 (device_id TEXT,property TEXT,value TEXT,PRIMARY KEY (device_id, property));
INSERT INTO properties_v2 VALUES('xrandr-Fixture-Display','OwnerCmdline','colormgr create-device xrandr-Fixture-Display disk display ');
INSERT INTO properties_v2 VALUES('xrandr-Fixture-Display','Vendor','Fixture Vendor');
INSERT INTO properties_v2 VALUES('xrandr-Fixture-Display','Model','Fixture Model 27');
INSERT INTO properties_v2 VALUES('xrandr-Fixture-Display','Serial','SN-0001');
INSERT INTO properties_v2 VALUES('xrandr-Fixture-Display','Enabled','False');
INSERT INTO properties_v2 VALUES('cups-Fixture-Printer','OwnerCmdline','colormgr create-device cups-Fixture-Printer disk printer ');
INSERT INTO properties_v2 VALUES('cups-Fixture-Printer','Kind','printer');
INSERT INTO properties_v2 VALUES('cups-Fixture-Printer','Model','Fixture Printer');
INSERT INTO properties_v2 VALUES('sane-Fixture-Scanner','Enabled','False');
CREATE TABLE properties_pu (profile_id TEXT,property TEXT,uid INTEGER,value TEXT,PRIMARY KEY (profile_id, property, uid));
INSERT INTO properties_pu VALUES('icc-6209e0eee05d1da9df7b4e3c2da33f62','Title',0,'sRGB for root');
INSERT INTO properties_pu VALUES('icc-6209e0eee05d1da9df7b4e3c2da33f62','Title',104,'sRGB für colord');
INSERT INTO properties_pu VALUES('icc-a07f28226c40f0319868fa0890ccc8e4','Title',104,'Adobe (colord)');
COMMIT;
